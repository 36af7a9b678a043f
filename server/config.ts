import { resolve } from 'node:path';
import { fromRoot } from './core/root.js';

/**
 * Configuration is parsed once (CLI flags over environment over defaults) into this typed
 * object and passed to everything that needs it. Nothing else reads process.env.
 */
export interface Config {
  port: number;
  host: string;
  dataDir: string;
  inMemory: boolean;
  seed: string;
  fixturesDir: string;
  /** Base of presigned and download URLs; undefined = derived from each request's Host. */
  publicUrl: string | undefined;
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  adminToken: string | undefined;
  partnerTokenTtlS: number;
  userTokenTtlS: number;
  refreshTokenTtlS: number;
  chunkSize: number;
  maxFileSize: number;
  presignExpiryS: number;
  downloadExpiryS: number;
  uploadTtlS: number;
  /** Total time of a transcription in ms; 'auto' scales a few seconds with audio duration. */
  transcriptionDelay: number | 'auto';
  resultShape: 'spec' | 'live';
  errorShape: 'spec' | 'live';
  liveRateLimits: boolean;
  journalSize: number;
  /** Validate every response against openapi.yaml and answer 500 naming the violation. */
  validateResponses: boolean;
  /** Test-only: drop a field from an operation's responses (`operationId:field`). */
  breakResponse: string | undefined;
}

type Kind = 'string' | 'int' | 'bool';
export interface OptionSpec {
  flag: string;
  key: keyof Config;
  kind: Kind;
  env?: string;
  help: string;
  choices?: readonly string[];
  parse?: (raw: string) => unknown;
}

const GiB = 1024 ** 3;

export const defaults: Config = {
  port: 4010,
  host: '127.0.0.1',
  dataDir: resolve('data'),
  inMemory: false,
  seed: 'partner-sim',
  fixturesDir: fromRoot('fixtures'),
  publicUrl: undefined,
  logLevel: 'info',
  adminToken: undefined,
  partnerTokenTtlS: 3600,
  userTokenTtlS: 86400,
  refreshTokenTtlS: 30 * 86400,
  chunkSize: 5 * 1024 * 1024,
  maxFileSize: 5 * GiB,
  presignExpiryS: 3600,
  downloadExpiryS: 86400,
  uploadTtlS: 86400,
  transcriptionDelay: 'auto',
  resultShape: 'spec',
  errorShape: 'spec',
  liveRateLimits: false,
  journalSize: 1000,
  validateResponses: false,
  breakResponse: undefined,
};

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
    flag: 'seed',
    key: 'seed',
    kind: 'string',
    env: 'PARTNER_SIM_SEED',
    help: 'seed of the random source (ids, secrets, probabilistic faults)',
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
    flag: 'admin-token',
    key: 'adminToken',
    kind: 'string',
    env: 'PARTNER_SIM_ADMIN_TOKEN',
    help: 'require "Authorization: Bearer <token>" on /__admin',
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
    help: 'transcription result shape: spec (data.segments) or live (data.results)',
    choices: ['spec', 'live'],
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
    help: 'enforce documented live rate limits (token exchange: 10/min per client)',
  },
  {
    flag: 'journal-size',
    key: 'journalSize',
    kind: 'int',
    env: 'PARTNER_SIM_JOURNAL_SIZE',
    help: 'request journal capacity (ring buffer)',
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

export class ConfigError extends Error {}

function convert(opt: OptionSpec, raw: string, source: string): unknown {
  const where = `${source} (${opt.kind === 'bool' ? 'true/false' : opt.kind})`;
  try {
    if (opt.parse) return opt.parse(raw);
  } catch (e) {
    throw new ConfigError(`invalid value for ${where}: ${JSON.stringify(raw)}: ${(e as Error).message}`);
  }
  if (opt.kind === 'int') {
    const n = Number(raw);
    if (!Number.isInteger(n) || n < 0)
      throw new ConfigError(`invalid value for ${where}: ${JSON.stringify(raw)}`);
    return n;
  }
  if (opt.kind === 'bool') {
    if (/^(1|true|yes|on)$/i.test(raw)) return true;
    if (/^(0|false|no|off|)$/i.test(raw)) return false;
    throw new ConfigError(`invalid value for ${where}: ${JSON.stringify(raw)}`);
  }
  if (opt.choices && !opt.choices.includes(raw)) {
    throw new ConfigError(
      `invalid value for ${source}: ${JSON.stringify(raw)} (choose ${opt.choices.join(', ')})`,
    );
  }
  return raw;
}

/**
 * Build a Config from flag values (already split by the CLI), the environment and defaults.
 * `flags` maps flag names (without dashes) to raw strings or booleans.
 */
export function parseConfig(
  flags: Record<string, string | boolean | undefined>,
  env: Record<string, string | undefined> = {},
  overrides: Partial<Config> = {},
): Config {
  const cfg: Record<string, unknown> = { ...defaults };
  for (const opt of options) {
    const envRaw = opt.env ? env[opt.env] : undefined;
    if (envRaw !== undefined && envRaw !== '') cfg[opt.key] = convert(opt, envRaw, opt.env!);
    const raw = flags[opt.flag];
    if (raw === undefined) continue;
    cfg[opt.key] = typeof raw === 'boolean' ? raw : convert(opt, raw, `--${opt.flag}`);
  }
  const out = { ...cfg, ...overrides } as Config;
  out.dataDir = resolve(out.dataDir);
  out.fixturesDir = resolve(out.fixturesDir);
  if (out.publicUrl !== undefined) {
    try {
      const u = new URL(out.publicUrl);
      if (!/^https?:$/.test(u.protocol)) throw new Error('not http(s)');
    } catch {
      throw new ConfigError(
        `invalid value for --public-url: ${JSON.stringify(out.publicUrl)} (an http(s) URL)`,
      );
    }
    out.publicUrl = out.publicUrl.replace(/\/+$/, '');
  }
  if (out.port > 65535) throw new ConfigError(`invalid value for --port: ${out.port} (0-65535)`);
  if (out.chunkSize < 1) throw new ConfigError('--chunk-size must be at least 1');
  return out;
}

/** A config for tests and embedding: defaults, in memory, silent, responses validated. */
export function testConfig(overrides: Partial<Config> = {}): Config {
  return parseConfig(
    {},
    {},
    { inMemory: true, logLevel: 'silent', validateResponses: true, port: 0, ...overrides },
  );
}
