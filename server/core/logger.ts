import { createRequire } from 'node:module';
import { type Logger, pino } from 'pino';
import type { Config } from '../config.js';

/** Where log lines go: process.stdout, or a test's stand-in. */
export interface LogOutput {
  isTTY?: boolean;
  write(line: string): unknown;
}

/**
 * Readable lines for a person at a terminal; one JSON object per line for everything else
 * (pipes, files, CI, log collectors), and always in tests, whose output is read by code.
 */
export function wantsPretty(out: LogOutput, env: NodeJS.ProcessEnv): boolean {
  return out.isTTY === true && env.NODE_ENV !== 'test' && env.VITEST === undefined;
}

/** The simulator's logger: JSON by default, pino-pretty lines on a terminal. */
export function createLogger(
  level: Config['logLevel'],
  out: LogOutput = process.stdout,
  env: NodeJS.ProcessEnv = process.env,
): Logger {
  const options = { level, base: { name: 'partner-sim' } };
  if (!wantsPretty(out, env)) return out === process.stdout ? pino(options) : pino(options, out);
  // Loaded only here: a server writing JSON never pays for the prettifier's start-up. The
  // factory formats in this thread, so no worker thread and no lines lost at exit.
  const { prettyFactory } = createRequire(import.meta.url)('pino-pretty') as typeof import('pino-pretty');
  const prettify = prettyFactory({
    colorize: true,
    translateTime: 'SYS:HH:MM:ss.l',
    ignore: 'pid,hostname,name',
  });
  return pino(options, { write: (line: string) => out.write(prettify(line)) });
}
