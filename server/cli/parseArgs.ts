import { parseArgs as nodeParseArgs, type ParseArgsConfig } from 'node:util';

/**
 * node:util's parseArgs, whose "Unknown option '--prot'" also says which option was probably
 * meant ("did you mean --port?"), for every command of the CLI. The error keeps its code, so
 * callers report it as before (a usage error, exit 2).
 */
export function parseArgs<T extends ParseArgsConfig>(config: T): ReturnType<typeof nodeParseArgs<T>> {
  try {
    return nodeParseArgs(config);
  } catch (e) {
    const err = e as Error & { code?: string };
    if (err.code !== 'ERR_PARSE_ARGS_UNKNOWN_OPTION') throw e;
    const typed = /'(-{1,2}[^'\s]+)'/.exec(err.message)?.[1];
    const known = Object.keys(config.options ?? {});
    const hint = typed === undefined ? undefined : closest(typed.replace(/^-+/, '').split('=')[0]!, known);
    if (hint !== undefined) err.message = `${err.message.split('. ')[0]}; did you mean --${hint}?`;
    throw err;
  }
}

/** The known name nearest to `typed`, within a third of its length in edits (one at least). */
function closest(typed: string, known: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Math.max(1, Math.floor(typed.length / 3)) + 1;
  for (const name of known) {
    const d = editDistance(typed.toLowerCase(), name);
    if (d < bestDistance) [best, bestDistance] = [name, d];
  }
  return best;
}

/** Edit distance counting an insert, a delete, a substitution or a swap of neighbours as one. */
function editDistance(a: string, b: string): number {
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
