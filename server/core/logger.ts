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
export function wantsPretty(
  out: LogOutput,
  env: NodeJS.ProcessEnv,
  format: Config['logFormat'] = 'auto',
): boolean {
  if (format !== 'auto') return format === 'pretty';
  return out.isTTY === true && env.NODE_ENV !== 'test' && env.VITEST === undefined;
}

/** The simulator's logger: JSON by default, pino-pretty lines on a terminal (`wantsPretty`). */
export function createLogger(
  level: Config['logLevel'],
  out: LogOutput = process.stdout,
  env: NodeJS.ProcessEnv = process.env,
  format: Config['logFormat'] = 'auto',
): Logger {
  const options = { level, base: { name: 'partner-sim' } };
  if (!wantsPretty(out, env, format)) return out === process.stdout ? pino(options) : pino(options, out);
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

/** Writes one readable line at a level: the per-request line of a terminal. */
export type LineWriter = (level: 'info' | 'debug', text: string) => void;

const pad = (n: number, w = 2) => String(n).padStart(w, '0');

/**
 * Readable lines written straight to `out`, looking as pino-pretty prints a message alone
 * (`[12:00:01.250] INFO: text`), without a JSON object built and parsed back in between: the
 * per-request line is written for every request, and that round trip cost more than serving
 * a binding GET (bench/requestLogLine.ts). The caller checks the logger's level first.
 */
export function lineWriter(out: LogOutput = process.stdout): LineWriter {
  const color = out.isTTY === true;
  const tag = {
    info: color ? '\x1b[32mINFO\x1b[39m' : 'INFO',
    debug: color ? '\x1b[34mDEBUG\x1b[39m' : 'DEBUG',
  };
  return (level, text) => {
    const d = new Date();
    const time = `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}.${pad(d.getMilliseconds(), 3)}`;
    out.write(`[${time}] ${tag[level]}: ${text}\n`);
  };
}
