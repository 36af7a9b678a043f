const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/**
 * A duration option (`7d`, `36h`, `90m`, `30s`, `250ms`, or a bare number of ms) in ms.
 * Throws with the accepted forms on anything else, so a typo is a start-up error.
 */
export function parseDuration(raw: string): number {
  const m = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)?\s*$/.exec(raw);
  const ms = m ? Math.round(Number(m[1]) * UNIT_MS[m[2] ?? 'ms']!) : Number.NaN;
  if (!Number.isSafeInteger(ms))
    throw new Error("expected a duration such as '7d', '36h', '90m', '30s' or ms");
  return ms;
}
