import { vi } from 'vitest';
import { main } from '../cli.js';

export interface CliResult {
  code: number;
  out: string;
  err: string;
}

/** A command run in process: its exit code and what it wrote to stdout and stderr. */
export async function captured(run: () => Promise<number>): Promise<CliResult> {
  let out = '';
  let err = '';
  const o = vi.spyOn(process.stdout, 'write').mockImplementation((s) => {
    out += String(s);
    return true;
  });
  const e = vi.spyOn(process.stderr, 'write').mockImplementation((s) => {
    err += String(s);
    return true;
  });
  try {
    return { code: await run(), out, err };
  } finally {
    o.mockRestore();
    e.mockRestore();
  }
}

/** `partner-sim …` run in process. */
export const runCli = (...argv: string[]): Promise<CliResult> => captured(() => main(argv));
