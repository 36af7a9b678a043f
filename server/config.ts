import { resolve } from 'node:path';
import { type Config, defaults, type OptionSpec, options } from './configOptions.js';

export { type Config, defaults, options };

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
  if (out.proxyPassthrough && !out.https)
    throw new ConfigError('--proxy-passthrough needs --https (the proxy it opens is part of --https)');
  // Its https:// URLs reach the simulator only through its TLS listener and proxy.
  if (out.storageHost !== undefined && !out.https)
    throw new ConfigError('--storage-host needs --https (its URLs are https:// through the proxy)');
  if (out.store !== undefined && out.inMemory)
    throw new ConfigError('--store and --in-memory exclude each other: pick where state lives');
  if ((out.record === undefined) !== (out.upstream === undefined))
    throw new ConfigError(
      out.record === undefined
        ? '--upstream needs --record <dir>: nothing is forwarded unless it is recorded'
        : '--record needs --upstream <live|live-us|live-jp|URL>: where the recorded requests go',
    );
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
