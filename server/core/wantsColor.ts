/**
 * Colour only for a person at a terminal: never in a pipe or a file (a CI log shows escape
 * codes as noise), never with `NO_COLOR` set (no-color.org); `FORCE_COLOR` (not `0`) forces
 * it, for a CI log viewer that renders colours. The logs and the CLI's children share it.
 */
export function wantsColor(out: { isTTY?: boolean }, env: NodeJS.ProcessEnv): boolean {
  if (env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== '' && env.FORCE_COLOR !== '0') return true;
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  return out.isTTY === true;
}
