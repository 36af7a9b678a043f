import { isIP } from 'node:net';
import { resolve } from 'node:path';
import { parseDuration } from './core/duration.js';
import { fromRoot } from './core/root.js';
import { isPostgresUrl, redactUrl } from './store/postgres/url.js';

/**
 * Every option of `partner-sim serve`: its flag, environment variable, type, default and help.
 * The CLI parser, `--help`, the defaults and the `Config` type are all read off this one list;
 * a test holds docs/configuration.md's table to it.
 */
type Kind = 'string' | 'int' | 'bool';
type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';

interface Option<K extends string, T> {
  flag: string;
  /** The field of `Config` it sets. */
  key: K;
  kind: Kind;
  env?: string;
  help: string;
  /** The value when neither the flag nor the variable is given; its type is the field's. */
  default: T;
  choices?: readonly string[];
  parse?: (raw: string) => T;
  /** How a raw value may be shown in an error (a URL's password must not be). */
  show?: (raw: string) => string;
}

const option = <K extends string, T>(o: Option<K, T>): Option<K, T> => o;

const GiB = 1024 ** 3;

/** An http(s) URL, or an error saying so. */
function httpUrl(raw: string): string {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    throw new Error('expected an http(s) URL');
  }
  if (!/^https?:$/.test(u.protocol)) throw new Error('expected an http(s) URL');
  return raw;
}

/** A comma list of host names (optionally with a port, or '*'); IPv6 addresses in brackets or bare. */
function hostList(raw: string, withPorts: boolean): string[] {
  const hosts = raw
    .split(',')
    .map((h) => h.trim().toLowerCase())
    .filter(Boolean);
  const ok = withPorts
    ? (h: string) => h === '*' || /^(\[[0-9a-f:.]+\]|[a-z0-9_.-]+)(:\d{1,5})?$/.test(h)
    : (h: string) => /^[a-z0-9_.-]+$/.test(h) || isIP(h.replace(/^\[(.*)\]$/, '$1')) !== 0;
  const bad = hosts.find((h) => !ok(h));
  if (bad !== undefined) throw new Error(`not a host name: ${JSON.stringify(bad)}`);
  return hosts;
}

export const options = [
  option({
    flag: 'port',
    key: 'port',
    kind: 'int',
    env: 'PORT',
    help: 'port to listen on; 0 picks a free one',
    default: 4010,
  }),
  option({
    flag: 'host',
    key: 'host',
    kind: 'string',
    default: '127.0.0.1',
    env: 'HOST',
    help: 'interface to bind (use 0.0.0.0 in a container)',
  }),
  option({
    flag: 'data-dir',
    key: 'dataDir',
    kind: 'string',
    default: resolve('data'),
    env: 'PARTNER_SIM_DATA_DIR',
    help: 'folder for state and uploaded bytes',
  }),
  option({
    flag: 'in-memory',
    key: 'inMemory',
    kind: 'bool',
    default: false,
    env: 'PARTNER_SIM_IN_MEMORY',
    help: 'keep everything in memory (nothing written to disk)',
  }),
  option({
    flag: 'store',
    key: 'store',
    kind: 'string',
    default: undefined as string | undefined,
    env: 'PARTNER_SIM_STORE',
    help: 'a postgres:// URL: all state (and uploaded bytes) in that database, shared by every instance using it (default: files under --data-dir)',
    show: redactUrl,
    parse: (raw) => {
      if (!isPostgresUrl(raw)) throw new Error('expected a postgres:// or postgresql:// URL');
      try {
        new URL(raw);
      } catch {
        throw new Error('not a valid URL');
      }
      return raw;
    },
  }),
  option({
    flag: 'seed',
    key: 'seed',
    kind: 'string',
    default: undefined as string | undefined,
    env: 'PARTNER_SIM_SEED',
    help: 'seed of the random source (ids, secrets, faults): reproducible but guessable; default: CSPRNG',
  }),
  option({
    flag: 'fixtures',
    key: 'fixturesDir',
    kind: 'string',
    default: fromRoot('fixtures'),
    env: 'PARTNER_SIM_FIXTURES',
    help: 'fixtures folder loaded into an empty store',
  }),
  option({
    flag: 'public-url',
    key: 'publicUrl',
    kind: 'string',
    default: undefined as string | undefined,
    env: 'PARTNER_SIM_PUBLIC_URL',
    help: 'base URL written into presigned/download URLs (default: from the request Host)',
  }),
  option({
    flag: 'log-level',
    key: 'logLevel',
    kind: 'string',
    default: 'info' as LogLevel,
    env: 'LOG_LEVEL',
    help: 'log level',
    choices: ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'],
  }),
  option({
    flag: 'log-format',
    key: 'logFormat',
    kind: 'string',
    default: 'auto' as 'auto' | 'pretty' | 'json',
    env: 'PARTNER_SIM_LOG_FORMAT',
    help: 'pretty: readable lines, one per partner API and storage request at info; json: one JSON object a line; auto: pretty when stdout is a terminal',
    choices: ['auto', 'pretty', 'json'],
  }),
  option({
    flag: 'access-log',
    key: 'accessLog',
    kind: 'bool',
    default: false,
    env: 'PARTNER_SIM_ACCESS_LOG',
    help: 'JSON logs: every partner API and storage request at info (without it: at debug, plus a summary a minute at info); readable logs always have them',
  }),
  option({
    flag: 'admin-token',
    key: 'adminToken',
    kind: 'string',
    default: undefined as string | undefined,
    env: 'PARTNER_SIM_ADMIN_TOKEN',
    help: 'require "Authorization: Bearer <token>" on /__admin',
  }),
  option({
    flag: 'allowed-hosts',
    key: 'allowedHosts',
    kind: 'string',
    default: [] as string[],
    env: 'PARTNER_SIM_ALLOWED_HOSTS',
    help: "comma list of extra host names /__admin answers to (loopback and the --public-url host always work); '*' allows any",
    parse: (raw) => hostList(raw, true),
  }),
  option({
    flag: 'https',
    key: 'https',
    kind: 'bool',
    default: false,
    env: 'PARTNER_SIM_HTTPS',
    help: 'the port also answers HTTPS (a leaf of the local CA, see `partner-sim ca`) and as an HTTP proxy serving the live hosts (docs/any-client.md)',
  }),
  option({
    flag: 'https-only',
    key: 'httpsOnly',
    kind: 'bool',
    default: false,
    env: 'PARTNER_SIM_HTTPS_ONLY',
    help: 'with --https: answer direct plain-HTTP requests with 400 (proxy requests still work)',
  }),
  option({
    flag: 'ca-dir',
    key: 'caDir',
    kind: 'string',
    default: undefined as string | undefined,
    env: 'PARTNER_SIM_CA_DIR',
    help: 'folder of the local certificate authority, created on first use, key owner-only (default: <data-dir>/ca)',
  }),
  option({
    flag: 'tls-hosts',
    key: 'tlsHosts',
    kind: 'string',
    default: [] as string[],
    env: 'PARTNER_SIM_TLS_HOSTS',
    help: 'comma list of more names or addresses the certificate covers and the proxy serves (e.g. a LAN address for a phone)',
    parse: (raw) => hostList(raw, false),
  }),
  option({
    flag: 'storage-host',
    key: 'storageHost',
    kind: 'string',
    default: undefined as string | undefined,
    env: 'PARTNER_SIM_STORAGE_HOST',
    help: "S3-shaped upload and download URLs, https://<this host>/<key>?X-Amz-… (e.g. partner-sim.s3.us-east-1.amazonaws.com), served through --https and its proxy; default: URLs on the simulator's own address",
    parse: (raw) => {
      const [host] = hostList(raw, false);
      if (host === undefined || raw.includes(',') || /^[0-9.]+$|:/.test(host))
        throw new Error('expected one DNS name, such as partner-sim.s3.us-east-1.amazonaws.com');
      return host;
    },
  }),
  option({
    flag: 'partner-token-ttl',
    key: 'partnerTokenTtlS',
    kind: 'int',
    default: 3600,
    env: 'PARTNER_SIM_PARTNER_TOKEN_TTL',
    help: 'partner token lifetime, seconds',
  }),
  option({
    flag: 'user-token-ttl',
    key: 'userTokenTtlS',
    kind: 'int',
    default: 86400,
    env: 'PARTNER_SIM_USER_TOKEN_TTL',
    help: 'user token lifetime when the request gives none, seconds',
  }),
  option({
    flag: 'refresh-token-ttl',
    key: 'refreshTokenTtlS',
    kind: 'int',
    default: 30 * 86400,
    env: 'PARTNER_SIM_REFRESH_TOKEN_TTL',
    help: 'refresh token lifetime, seconds',
  }),
  option({
    flag: 'chunk-size',
    key: 'chunkSize',
    kind: 'int',
    default: 5 * 1024 * 1024,
    env: 'PARTNER_SIM_CHUNK_SIZE',
    help: 'ChunkSize of upload sessions, bytes',
  }),
  option({
    flag: 'max-file-size',
    key: 'maxFileSize',
    kind: 'int',
    default: 5 * GiB,
    env: 'PARTNER_SIM_MAX_FILE_SIZE',
    help: 'largest accepted filesize, bytes',
  }),
  option({
    flag: 'presign-expiry',
    key: 'presignExpiryS',
    kind: 'int',
    default: 3600,
    env: 'PARTNER_SIM_PRESIGN_EXPIRY',
    help: 'lifetime of part upload URLs, seconds',
  }),
  option({
    flag: 'download-expiry',
    key: 'downloadExpiryS',
    kind: 'int',
    default: 86400,
    env: 'PARTNER_SIM_DOWNLOAD_EXPIRY',
    help: 'lifetime of DownloadUrl, seconds',
  }),
  option({
    flag: 'upload-ttl',
    key: 'uploadTtlS',
    kind: 'int',
    default: 86400,
    env: 'PARTNER_SIM_UPLOAD_TTL',
    help: 'abandoned upload sessions are removed after this many seconds',
  }),
  option({
    flag: 'upload-filetypes',
    key: 'uploadFiletypes',
    kind: 'string',
    default: [] as string[],
    env: 'PARTNER_SIM_UPLOAD_FILETYPES',
    help: 'comma list of upload filetypes accepted besides mp3 and opus (live refuses others), e.g. wav,m4a',
    parse: (raw) => {
      const list = raw
        .split(',')
        .map((t) => t.trim())
        .filter(Boolean);
      const bad = list.find((t) => !/^[a-z0-9]{1,16}$/.test(t));
      if (bad !== undefined) throw new Error(`${JSON.stringify(bad)} is not a lowercase file extension`);
      return list;
    },
  }),
  option({
    flag: 'transcription-delay',
    key: 'transcriptionDelay',
    kind: 'string',
    default: 'auto' as number | 'auto',
    env: 'PARTNER_SIM_TRANSCRIPTION_DELAY',
    help: "total transcription time in ms, 'instant' (0) or 'auto' (a few seconds, scaled by audio duration)",
    parse: (raw) => {
      if (raw === 'auto') return 'auto';
      if (raw === 'instant') return 0;
      const n = Number(raw);
      if (!Number.isInteger(n) || n < 0)
        throw new Error("expected 'auto', 'instant' or a whole number of ms");
      return n;
    },
  }),
  option({
    flag: 'result-shape',
    key: 'resultShape',
    kind: 'string',
    default: 'both' as 'both' | 'spec' | 'live',
    env: 'PARTNER_SIM_RESULT_SHAPE',
    help: 'transcription result shape: both (data.segments and data.results), spec (segments) or live (results)',
    choices: ['both', 'spec', 'live'],
  }),
  option({
    flag: 'result-retention',
    key: 'resultRetentionMs',
    kind: 'string',
    default: 7 * 86_400_000,
    env: 'PARTNER_SIM_RESULT_RETENTION',
    help: "how long a finished transcription task stays readable: a duration such as '7d', '36h', '90m', '30s' or ms",
    parse: parseDuration,
  }),
  option({
    flag: 'error-shape',
    key: 'errorShape',
    kind: 'string',
    default: 'spec' as 'spec' | 'live',
    env: 'PARTNER_SIM_ERROR_SHAPE',
    help: 'error bodies: spec ({detail, message}) or live ({code, message})',
    choices: ['spec', 'live'],
  }),
  option({
    flag: 'live-rate-limits',
    key: 'liveRateLimits',
    kind: 'bool',
    default: false,
    env: 'PARTNER_SIM_LIVE_RATE_LIMITS',
    help: 'enforce documented live rate limits per client (token exchange 10/min, transcription API 60/min)',
  }),
  option({
    flag: 'strict-params',
    key: 'strictParams',
    kind: 'bool',
    default: false,
    env: 'PARTNER_SIM_STRICT_PARAMS',
    help: 'refuse unknown fields in transcription params with 422 (default: ignore them, warn in X-Sim-Warning)',
  }),
  option({
    flag: 'journal-size',
    key: 'journalSize',
    kind: 'int',
    default: 1000,
    env: 'PARTNER_SIM_JOURNAL_SIZE',
    help: 'request journal entries kept per app (one ring each, plus one for no app)',
  }),
  option({
    flag: 'transcriber',
    key: 'transcriber',
    kind: 'string',
    default: undefined as string | undefined,
    env: 'PARTNER_SIM_TRANSCRIBER',
    help: "speech server for real words: base URL of a POST /v1/audio/transcriptions server (whisper.cpp, speaches, LocalAI), e.g. http://127.0.0.1:8080; 'none' (default): made-up text",
    parse: (raw) => (raw === 'none' ? undefined : httpUrl(raw)),
  }),
  option({
    flag: 'transcriber-model',
    key: 'transcriberModel',
    kind: 'string',
    default: 'whisper-1',
    env: 'PARTNER_SIM_TRANSCRIBER_MODEL',
    help: 'model form field sent to the --transcriber server (whisper.cpp ignores it; speaches needs one)',
  }),
  option({
    flag: 'transcriber-diarization',
    key: 'transcriberDiarization',
    kind: 'string',
    default: undefined as string | undefined,
    env: 'PARTNER_SIM_TRANSCRIBER_DIARIZATION',
    help: 'speaker labels for diarization tasks from a POST /v1/audio/diarization server (LocalAI); default: one speaker',
    parse: httpUrl,
  }),
  option({
    flag: 'transcriber-timeout',
    key: 'transcriberTimeoutMs',
    kind: 'string',
    default: 300_000,
    env: 'PARTNER_SIM_TRANSCRIBER_TIMEOUT',
    help: "how long one --transcriber request may take before the task ends in FAILURE: '5m', '90s' or ms",
    parse: parseDuration,
  }),
  option({
    flag: 'fetch-external-audio',
    key: 'fetchExternalAudio',
    kind: 'bool',
    default: false,
    env: 'PARTNER_SIM_FETCH_EXTERNAL_AUDIO',
    help: 'fetch file_urls outside the simulator (http(s), 200 MiB, 60 s; no private addresses) for their real duration, MD5 and engine words (default: never fetched)',
  }),
  option({
    flag: 'fetch-allow-private',
    key: 'fetchAllowPrivate',
    kind: 'bool',
    default: false,
    env: 'PARTNER_SIM_FETCH_ALLOW_PRIVATE',
    help: 'let --fetch-external-audio reach private, loopback and link-local addresses',
  }),
  option({
    flag: 'max-connections',
    key: 'maxConnections',
    kind: 'int',
    default: 2048,
    env: 'PARTNER_SIM_MAX_CONNECTIONS',
    help: 'open connections at most: when full, the oldest idle one is closed, else a new one gets 503',
  }),
  option({
    flag: 'headers-timeout',
    key: 'headersTimeoutMs',
    kind: 'string',
    default: 20_000,
    env: 'PARTNER_SIM_HEADERS_TIMEOUT',
    help: "time a connection has to send a request's headers: a duration such as '20s' or ms",
    parse: parseDuration,
  }),
  option({
    flag: 'body-timeout',
    key: 'bodyTimeoutMs',
    kind: 'string',
    default: 30_000,
    env: 'PARTNER_SIM_BODY_TIMEOUT',
    help: "longest pause while a request body arrives, then the connection is cut: a duration such as '30s' or ms",
    parse: parseDuration,
  }),
  option({
    flag: 'webhook-timeout',
    key: 'webhookTimeoutMs',
    kind: 'string',
    default: 10_000,
    env: 'PARTNER_SIM_WEBHOOK_TIMEOUT',
    help: "deadline of one webhook delivery POST (connect, answer and body): a duration such as '10s' or ms, 100 ms to 10 min",
    parse: (raw) => {
      const ms = parseDuration(raw);
      if (ms < 100 || ms > 600_000) throw new Error('from 100 ms to 10 minutes');
      return ms;
    },
  }),
  option({
    flag: 'validate-responses',
    key: 'validateResponses',
    kind: 'bool',
    default: false,
    env: 'PARTNER_SIM_VALIDATE_RESPONSES',
    help: 'check every response against openapi.yaml; a violation answers 500 naming it',
  }),
  option({
    flag: 'break-response',
    key: 'breakResponse',
    kind: 'string',
    default: undefined as string | undefined,
    env: 'PARTNER_SIM_BREAK_RESPONSE',
    help: 'test-only: drop a field from responses, as operationId:field',
  }),
] as const;

/**
 * Configuration is parsed once (CLI flags over environment over defaults) into this typed
 * object and passed to everything that needs it. Nothing else reads process.env. One field per
 * option, of the type of its default.
 */
export type Config = { -readonly [O in (typeof options)[number] as O['key']]: O['default'] };

/** An option of the list, whatever its field. */
export type OptionSpec = Option<keyof Config, unknown>;

export const defaults = Object.fromEntries(options.map((o) => [o.key, o.default])) as Config;
