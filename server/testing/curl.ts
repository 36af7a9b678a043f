import { type ExecFileError, execFileTracked } from './spawnTracked.js';

/**
 * curl with `-sS -i` and a 20 s cap: its status line(s), headers and body, what it said on
 * stderr, and its exit code (56: the proxy refused the tunnel), never a throw.
 */
export async function curl(...args: string[]): Promise<{ code: number; out: string; err: string }> {
  try {
    const { stdout, stderr } = await execFileTracked('curl', ['-sS', '-i', '-m', '20', ...args]);
    return { code: 0, out: stdout, err: stderr };
  } catch (e) {
    const x = e as ExecFileError;
    return { code: x.code ?? -1, out: x.stdout, err: x.stderr };
  }
}
