import { isIP } from 'node:net';
import type { Config } from './config.js';
import { parseDuration } from './core/duration.js';
import { isPostgresUrl, redactUrl } from './store/postgres/url.js';

/**
 * Every option of `partner-sim serve`: its flag, environment variable, type and help. The CLI
 * parser and `--help` are read off this one list; a test holds the README's table to it.
 */
type Kind = 'string' | 'int' | 'bool';
export interface OptionSpec {
  flag: string;
  key: keyof Config;
  kind: Kind;
  env?: string;
  help: string;
  choices?: readonly string[];
  parse?: (raw: string) => unknown;
  /** How a raw value may be shown in an error (a URL's password must not be). */
  show?: (raw: string) => string;
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

export const options: OptionSpec[] = [
  { flag: 'port', key: 'port', kind: 'int', env: 'PORT', help: 'port to listen on; 0 picks a free one' },
  {
    flag: 'host',
    key: 'host',
    kind: 'string',
    env: 'HOST',
    help: 'interface to bind (use 0.0.0.0 in a container)',
  },
  {
    flag: 'data-dir',
    key: 'dataDir',
    kind: 'string',
    env: 'PARTNER_SIM_DATA_DIR',
    help: 'folder for state and uploaded bytes',
  },
  {
    flag: 'in-memory',
    key: 'inMemory',
    kind: 'bool',
    env: 'PARTNER_SIM_IN_MEMORY',
    help: 'keep everything in memory (nothing written to disk)',
  },
  {
    flag: 'store',
    key: 'store',
    kind: 'string',
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
  },
  {
    flag: 'seed',
    key: 'seed',
    kind: 'string',
    env: 'PARTNER_SIM_SEED',
    help: 'seed of the random source (ids, secrets, faults): reproducible but guessable; default: CSPRNG',
  },
  {
    flag: 'fixtures',
    key: 'fixturesDir',
    kind: 'string',
    env: 'PARTNER_SIM_FIXTURES',
    help: 'fixtures folder loaded into an empty store',
  },
  {
    flag: 'public-url',
    key: 'publicUrl',
    kind: 'string',
    env: 'PARTNER_SIM_PUBLIC_URL',
    help: 'base URL written into presigned/download URLs (default: from the request Host)',
  },
  {
    flag: 'log-level',
    key: 'logLevel',
    kind: 'string',
    env: 'LOG_LEVEL',
    help: 'log level',
    choices: ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'],
  },
  {
    flag: 'access-log',
    key: 'accessLog',
    kind: 'bool',
    env: 'PARTNER_SIM_ACCESS_LOG',
    help: 'log every partner API and storage request at info (default: at debug, plus a summary a minute at info)',
  },
  {
    flag: 'admin-token',
    key: 'adminToken',
    kind: 'string',
    env: 'PARTNER_SIM_ADMIN_TOKEN',
    help: 'require "Authorization: Bearer <token>" on /__admin',
  },
  {
    flag: 'allowed-hosts',
    key: 'allowedHosts',
    kind: 'string',
    env: 'PARTNER_SIM_ALLOWED_HOSTS',
    help: "comma list of extra host names /__admin answers to (loopback and the --public-url host always work); '*' allows any",
    parse: (raw) => hostList(raw, true),
  },
  {
    flag: 'https',
    key: 'https',
    kind: 'bool',
    env: 'PARTNER_SIM_HTTPS',
    help: 'the port also answers HTTPS (a leaf of the local CA, see `partner-sim ca`) and as an HTTP proxy serving the live hosts (docs/any-client.md)',
  },
  {
    flag: 'https-only',
    key: 'httpsOnly',
    kind: 'bool',
    env: 'PARTNER_SIM_HTTPS_ONLY',
    help: 'with --https: answer direct plain-HTTP requests with 400 (proxy requests still work)',
  },
  {
    flag: 'ca-dir',
    key: 'caDir',
    kind: 'string',
    env: 'PARTNER_SIM_CA_DIR',
    help: 'folder of the local certificate authority, created on first use, key owner-only (default: <data-dir>/ca)',
  },
  {
    flag: 'tls-hosts',
    key: 'tlsHosts',
    kind: 'string',
    env: 'PARTNER_SIM_TLS_HOSTS',
    help: 'comma list of more names or addresses the certificate covers and the proxy serves (e.g. a LAN address for a phone)',
    parse: (raw) => hostList(raw, false),
  },
  {
    flag: 'storage-host',
    key: 'storageHost',
    kind: 'string',
    env: 'PARTNER_SIM_STORAGE_HOST',
    help: "S3-shaped upload and download URLs, https://<this host>/<key>?X-Amz-… (e.g. partner-sim.s3.us-east-1.amazonaws.com), served through --https and its proxy; default: URLs on the simulator's own address",
    parse: (raw) => {
      const [host] = hostList(raw, false);
      if (host === undefined || raw.includes(',') || /^[0-9.]+$|:/.test(host))
        throw new Error('expected one DNS name, such as partner-sim.s3.us-east-1.amazonaws.com');
      return host;
    },
  },
  {
    flag: 'partner-token-ttl',
    key: 'partnerTokenTtlS',
    kind: 'int',
    env: 'PARTNER_SIM_PARTNER_TOKEN_TTL',
    help: 'partner token lifetime, seconds',
  },
  {
    flag: 'user-token-ttl',
    key: 'userTokenTtlS',
    kind: 'int',
    env: 'PARTNER_SIM_USER_TOKEN_TTL',
    help: 'user token lifetime when the request gives none, seconds',
  },
  {
    flag: 'refresh-token-ttl',
    key: 'refreshTokenTtlS',
    kind: 'int',
    env: 'PARTNER_SIM_REFRESH_TOKEN_TTL',
    help: 'refresh token lifetime, seconds',
  },
  {
    flag: 'chunk-size',
    key: 'chunkSize',
    kind: 'int',
    env: 'PARTNER_SIM_CHUNK_SIZE',
    help: 'ChunkSize of upload sessions, bytes',
  },
  {
    flag: 'max-file-size',
    key: 'maxFileSize',
    kind: 'int',
    env: 'PARTNER_SIM_MAX_FILE_SIZE',
    help: 'largest accepted filesize, bytes',
  },
  {
    flag: 'presign-expiry',
    key: 'presignExpiryS',
    kind: 'int',
    env: 'PARTNER_SIM_PRESIGN_EXPIRY',
    help: 'lifetime of part upload URLs, seconds',
  },
  {
    flag: 'download-expiry',
    key: 'downloadExpiryS',
    kind: 'int',
    env: 'PARTNER_SIM_DOWNLOAD_EXPIRY',
    help: 'lifetime of DownloadUrl, seconds',
  },
  {
    flag: 'upload-ttl',
    key: 'uploadTtlS',
    kind: 'int',
    env: 'PARTNER_SIM_UPLOAD_TTL',
    help: 'abandoned upload sessions are removed after this many seconds',
  },
  {
    flag: 'upload-filetypes',
    key: 'uploadFiletypes',
    kind: 'string',
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
  },
  {
    flag: 'transcription-delay',
    key: 'transcriptionDelay',
    kind: 'string',
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
  },
  {
    flag: 'result-shape',
    key: 'resultShape',
    kind: 'string',
    env: 'PARTNER_SIM_RESULT_SHAPE',
    help: 'transcription result shape: both (data.segments and data.results), spec (segments) or live (results)',
    choices: ['both', 'spec', 'live'],
  },
  {
    flag: 'result-retention',
    key: 'resultRetentionMs',
    kind: 'string',
    env: 'PARTNER_SIM_RESULT_RETENTION',
    help: "how long a finished transcription task stays readable: a duration such as '7d', '36h', '90m', '30s' or ms",
    parse: parseDuration,
  },
  {
    flag: 'error-shape',
    key: 'errorShape',
    kind: 'string',
    env: 'PARTNER_SIM_ERROR_SHAPE',
    help: 'error bodies: spec ({detail, message}) or live ({code, message})',
    choices: ['spec', 'live'],
  },
  {
    flag: 'live-rate-limits',
    key: 'liveRateLimits',
    kind: 'bool',
    env: 'PARTNER_SIM_LIVE_RATE_LIMITS',
    help: 'enforce documented live rate limits per client (token exchange 10/min, transcription API 60/min)',
  },
  {
    flag: 'strict-params',
    key: 'strictParams',
    kind: 'bool',
    env: 'PARTNER_SIM_STRICT_PARAMS',
    help: 'refuse unknown fields in transcription params with 422 (default: ignore them, warn in X-Sim-Warning)',
  },
  {
    flag: 'journal-size',
    key: 'journalSize',
    kind: 'int',
    env: 'PARTNER_SIM_JOURNAL_SIZE',
    help: 'request journal entries kept per app (one ring each, plus one for no app)',
  },
  {
    flag: 'max-connections',
    key: 'maxConnections',
    kind: 'int',
    env: 'PARTNER_SIM_MAX_CONNECTIONS',
    help: 'open connections at most: when full, the oldest idle one is closed, else a new one gets 503',
  },
  {
    flag: 'headers-timeout',
    key: 'headersTimeoutMs',
    kind: 'string',
    env: 'PARTNER_SIM_HEADERS_TIMEOUT',
    help: "time a connection has to send a request's headers: a duration such as '20s' or ms",
    parse: parseDuration,
  },
  {
    flag: 'body-timeout',
    key: 'bodyTimeoutMs',
    kind: 'string',
    env: 'PARTNER_SIM_BODY_TIMEOUT',
    help: "longest pause while a request body arrives, then the connection is cut: a duration such as '30s' or ms",
    parse: parseDuration,
  },
  {
    flag: 'validate-responses',
    key: 'validateResponses',
    kind: 'bool',
    env: 'PARTNER_SIM_VALIDATE_RESPONSES',
    help: 'check every response against openapi.yaml; a violation answers 500 naming it',
  },
  {
    flag: 'break-response',
    key: 'breakResponse',
    kind: 'string',
    env: 'PARTNER_SIM_BREAK_RESPONSE',
    help: 'test-only: drop a field from responses, as operationId:field',
  },
];
