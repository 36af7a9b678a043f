export async function compareRuns(
  _a: string,
  _b: string,
  _dir: string,
  _out: (s: string) => void,
): Promise<number> {
  return 0;
}
