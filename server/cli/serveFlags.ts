import { options } from '../config.js';

/** Switches that are on unless turned off (`--access-log`): each also has `--no-<flag>`. */
const ON_BY_DEFAULT = options.filter((o) => o.kind === 'bool' && o.default === true).map((o) => o.flag);

/**
 * The option table as node:util parseArgs options: `serve` takes them, and so does `health`,
 * which must read the same config to know where and how the simulator listens. A switch on
 * by default also takes `--no-<flag>`: a flag, unlike the environment, must be able to say off.
 */
export const serveFlags: Record<string, { type: 'boolean' | 'string' }> = Object.fromEntries([
  ...options.map((o) => [o.flag, { type: o.kind === 'bool' ? ('boolean' as const) : ('string' as const) }]),
  ...ON_BY_DEFAULT.map((f) => [`no-${f}`, { type: 'boolean' as const }]),
]);

/** Parsed serve flags as parseConfig reads them: `--no-<flag>` becomes `<flag>: false`. */
export function serveValues(values: Record<string, unknown>): Record<string, string | boolean> {
  const out = { ...values } as Record<string, string | boolean>;
  for (const f of ON_BY_DEFAULT) {
    if (out[`no-${f}`] === true) out[f] = false;
    delete out[`no-${f}`];
  }
  return out;
}
