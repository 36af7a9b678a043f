import { options } from '../config.js';

/**
 * The option table as node:util parseArgs options: `serve` takes them, and so does `health`,
 * which must read the same config to know where and how the simulator listens.
 */
export const serveFlags: Record<string, { type: 'boolean' | 'string' }> = Object.fromEntries(
  options.map((o) => [o.flag, { type: o.kind === 'bool' ? ('boolean' as const) : ('string' as const) }]),
);
