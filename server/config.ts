import { resolve } from 'node:path';
import { type OptionSpec, options } from './configOptions.js';
import { fromRoot } from './core/root.js';

export { type OptionSpec, options };

/**
 * Configuration is parsed once (CLI flags over environment over defaults) into this typed
 * object and passed to everything that needs it. Nothing else reads process.env.
 */
export interface Config {
  port: number;
  host: string;
  dataDir: string;
  inMemory: boolean;
  /** `--store postgres://…`: state in that database; undefined: the file store (or memory). */
  store: string | undefined;
  /** Explicit seed: reproducible ids and secrets (tests). Undefined: from the CSPRNG. */
  seed: string | undefined;
  fixturesDir: string;
  /** Base of presigned and download URLs; undefined = derived from each request's Host. */
  publicUrl: string | undefined;
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  /** One log line per partner API and storage request at info (otherwise at debug). */
  accessLog: boolean;
  adminToken: string | undefined;
  /** Host names `/__admin` answers to besides loopback and the --public-url host; '*' = any. */
  allowedHosts: string[];
  /** `--https`: the port also speaks TLS and answers as an intercepting proxy. */
  https: boolean;
  /** `--https-only`: direct plain-HTTP requests get 400 (proxy requests still work). */
  httpsOnly: boolean;
  /** Folder of the local CA; undefined = `<dataDir>/ca`. */
  caDir: string | undefined;
  /** More names the leaf certificate covers and the proxy serves. */
  tlsHosts: string[];
  /** S3-shaped presigned and download URLs on this host (`https://<host>/<key>`); undefined = off. */
  storageHost: string | undefined;
  partnerTokenTtlS: number;
  userTokenTtlS: number;
  refreshTokenTtlS: number;
  chunkSize: number;
  maxFileSize: number;
  presignExpiryS: number;
  downloadExpiryS: number;
  uploadTtlS: number;
  /** Upload filetypes accepted besides the live pair mp3 and opus (`--upload-filetypes`). */
  uploadFiletypes: string[];
  /** Total time of a transcription in ms; 'auto' scales a few seconds with audio duration. */
  transcriptionDelay: number | 'auto';
  /** Result shape when the app names none: both forms (every client parses it), seed or live. */
  resultShape: 'both' | 'spec' | 'live';
  /** How long a finished transcription task stays readable, ms of simulated time. */
  resultRetentionMs: number;
  errorShape: 'spec' | 'live';
  liveRateLimits: boolean;
  /** Refuse unknown fields of transcription `params` (422) instead of ignoring them with a warning. */
  strictParams: boolean;
  journalSize: number;
  /** Open connections at most (server/http/connectionGuard.ts). */
  maxConnections: number;
  /** Time a connection has to send a request's headers, ms. */
  headersTimeoutMs: number;
  /** Longest pause while a request body arrives, ms. */
  bodyTimeoutMs: number;
  /** Validate every response against openapi.yaml and answer 500 naming the violation. */
  validateResponses: boolean;
  /** Test-only: drop a field from an operation's responses (`operationId:field`). */
  breakResponse: string | undefined;
}

const GiB = 1024 ** 3;

export const defaults: Config = {
  port: 4010,
  host: '127.0.0.1',
  dataDir: resolve('data'),
  inMemory: false,
  store: undefined,
  seed: undefined,
  fixturesDir: fromRoot('fixtures'),
  publicUrl: undefined,
  logLevel: 'info',
  accessLog: false,
  adminToken: undefined,
  allowedHosts: [],
  https: false,
  httpsOnly: false,
  caDir: undefined,
  tlsHosts: [],
  storageHost: undefined,
  partnerTokenTtlS: 3600,
  userTokenTtlS: 86400,
  refreshTokenTtlS: 30 * 86400,
  chunkSize: 5 * 1024 * 1024,
  maxFileSize: 5 * GiB,
  presignExpiryS: 3600,
  downloadExpiryS: 86400,
  uploadTtlS: 86400,
  uploadFiletypes: [],
  transcriptionDelay: 'auto',
  resultShape: 'both',
  resultRetentionMs: 7 * 86_400_000,
  errorShape: 'spec',
  liveRateLimits: false,
  strictParams: false,
  journalSize: 1000,
  maxConnections: 2048,
  headersTimeoutMs: 20_000,
  bodyTimeoutMs: 30_000,
  validateResponses: false,
  breakResponse: undefined,
};

/**
 * A bad flag or variable. Known by its name, not by `instanceof`: the built CLI is one bundled
 * file, and the commands it loads when run (transcribe, binding) have their own copy of this
 * module, hence of this class.
 */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

function convert(opt: OptionSpec, raw: string, source: string): unknown {
  const shown = opt.show ? opt.show(raw) : raw;
  const where = `${source} (${opt.kind === 'bool' ? 'true/false' : opt.kind})`;
  try {
    if (opt.parse) return opt.parse(raw);
  } catch (e) {
    throw new ConfigError(`invalid value for ${where}: ${JSON.stringify(shown)}: ${(e as Error).message}`);
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
  if (out.caDir !== undefined) out.caDir = resolve(out.caDir);
  if (out.httpsOnly && !out.https) throw new ConfigError('--https-only needs --https');
  // Its https:// URLs reach the simulator only through its TLS listener and proxy.
  if (out.storageHost !== undefined && !out.https)
    throw new ConfigError('--storage-host needs --https (its URLs are https:// through the proxy)');
  if (out.store !== undefined && out.inMemory)
    throw new ConfigError('--store and --in-memory exclude each other: pick where state lives');
  if (out.port > 65535) throw new ConfigError(`invalid value for --port: ${out.port} (0-65535)`);
  if (out.chunkSize < 1) throw new ConfigError('--chunk-size must be at least 1');
  if (out.maxConnections < 1) throw new ConfigError('--max-connections must be at least 1');
  if (out.headersTimeoutMs < 1) throw new ConfigError('--headers-timeout must be more than 0');
  if (out.bodyTimeoutMs < 1) throw new ConfigError('--body-timeout must be more than 0');
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
