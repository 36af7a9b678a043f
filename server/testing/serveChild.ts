import type { ChildProcess } from 'node:child_process';
import { spawnTracked } from './spawnTracked.js';

export interface ServeChild {
  proc: ChildProcess;
  /** The base URL it printed ("listening on …"). */
  url: string;
  /** Its exit code, once it exited. */
  exited: Promise<number | null>;
  /** Whether its output (from its start) shows `pattern` within `timeoutMs`, or before it exits. */
  printed(pattern: RegExp, timeoutMs: number): Promise<boolean>;
}

/**
 * `node <entry> serve …` as a real child process (tests that kill it, or run several at once),
 * resolved once it prints where it listens; rejected with its stderr if it exits first. Its
 * stdout keeps flowing, so a chatty child never blocks on a full pipe.
 */
export function spawnServe(
  entry: string,
  args: string[],
  opts: { nodeArgs?: string[]; env?: NodeJS.ProcessEnv } = {},
): Promise<ServeChild> {
  const proc = spawnTracked(process.execPath, [...(opts.nodeArgs ?? []), entry, 'serve', ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: opts.env ?? process.env,
  });
  const exited = new Promise<number | null>((r) => proc.once('exit', (code) => r(code)));
  let out = '';
  let err = '';
  const printed = (pattern: RegExp, timeoutMs: number): Promise<boolean> =>
    new Promise((resolve) => {
      const done = (seen: boolean) => {
        clearTimeout(timer);
        proc.stdout!.off('data', check);
        resolve(seen);
      };
      const check = () => {
        if (pattern.test(out)) done(true);
      };
      const timer = setTimeout(() => done(false), timeoutMs);
      void exited.then(() => done(pattern.test(out)));
      proc.stdout!.on('data', check);
      check();
    });
  proc.stderr!.on('data', (d: Buffer) => {
    err += d.toString();
  });
  return new Promise((resolve, reject) => {
    void exited.then((code) => reject(new Error(`simulator exited (${code}) before listening: ${err}`)));
    proc.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /listening on (http:\/\/[^\s"]+)/.exec(out);
      if (m) resolve({ proc, url: m[1]!, exited, printed });
    });
  });
}
