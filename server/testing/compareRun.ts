import { runCompare } from '../compare/command.js';

/** `partner-sim compare` run in this process, its output collected. */
export async function compareRun(args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await runCompare(args, {
    stdout: (s) => {
      out += s;
    },
    stderr: (s) => {
      err += s;
    },
    env: {},
  });
  return { code, out, err };
}
