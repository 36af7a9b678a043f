/**
 * "Did you mean": the known name nearest to what was typed, for mistyped flags (cli/parseArgs)
 * and mistyped paths (http/nearestPath) alike.
 */

/** Edit distance counting an insert, a delete, a substitution or a swap of neighbours as one. */
export function editDistance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [i]);
  for (let j = 1; j <= b.length; j++) d[0]![j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let v = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        v = Math.min(v, d[i - 2]![j - 2]! + 1);
      d[i]![j] = v;
    }
  }
  return d[a.length]![b.length]!;
}

/** Edits allowed between a typed name and a known one: a third of its length, one at least. */
const allowedEdits = (typed: string): number => Math.max(1, Math.floor(typed.length / 3));

/** The known name nearest to `typed` within `allowedEdits`, or undefined. */
export function nearestName(typed: string, known: Iterable<string>): string | undefined {
  let best: string | undefined;
  let bestDistance = allowedEdits(typed) + 1;
  for (const name of known) {
    const d = editDistance(typed.toLowerCase(), name);
    if (d < bestDistance) [best, bestDistance] = [name, d];
  }
  return best;
}
