import { isIP } from 'node:net';
import { parseDuration } from '../core/duration.js';

/**
 * What an option of `partner-sim serve` is made of, and the value parsers several share.
 * The options themselves are listed in the modules beside this one, in the order `--help`
 * shows them; server/configOptions.ts joins them into the one list everything reads.
 */
type Kind = 'string' | 'int' | 'bool';
export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';

export interface Option<K extends string, T> {
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

/** One option, its field name and value type kept exact for `Config`. */
export const option = <K extends string, T>(o: Option<K, T>): Option<K, T> => o;

export const GiB = 1024 ** 3;

/** An http(s) URL, or an error saying so. */
export function httpUrl(raw: string): string {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    throw new Error('expected an http(s) URL');
  }
  if (!/^https?:$/.test(u.protocol)) throw new Error('expected an http(s) URL');
  return raw;
}

/** A parser of a duration ('10s', '500ms' or ms) from `minMs` to `maxMs`, refusing others in `range`'s words. */
export const durationWithin =
  (minMs: number, maxMs: number, range: string) =>
  (raw: string): number => {
    const ms = parseDuration(raw);
    if (ms < minMs || ms > maxMs) throw new Error(range);
    return ms;
  };

/** A comma list of host names (optionally with a port, or '*'); IPv6 addresses in brackets or bare. */
export function hostList(raw: string, withPorts: boolean): string[] {
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
