const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** What a bare number means, where an option documents it: milliseconds unless it says seconds. */
export type BareUnit = 'ms' | 's';

/**
 * A duration option or flag (`7d`, `36h`, `90m`, `30s`, `250ms`, or a bare number in
 * `bare`, its documented unit) in ms: the one grammar of every duration the CLI reads.
 * Throws with the accepted forms on anything else, so a typo is a start-up error.
 */
export function parseDuration(raw: string, bare: BareUnit = 'ms'): number {
  const m = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)?\s*$/.exec(raw);
  const ms = m ? Math.round(Number(m[1]) * UNIT_MS[m[2] ?? bare]!) : Number.NaN;
  if (!Number.isSafeInteger(ms))
    throw new Error(
      `expected a duration such as '7d', '36h', '90m', '30s', '500ms' or a number of ${bare === 's' ? 'seconds' : 'ms'}`,
    );
  return ms;
}

/** A duration whose documented unit is whole seconds (`3600`, `1h`, `90m`), in seconds. */
export function parseSeconds(raw: string): number {
  const ms = parseDuration(raw, 's');
  if (ms % 1000 !== 0) throw new Error('expected whole seconds (a duration such as 1h, 90m or 3600)');
  return ms / 1000;
}
