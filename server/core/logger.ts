import { createRequire } from 'node:module';
import { type Logger, pino } from 'pino';
import type { Config } from '../config.js';
import { BatchedOutput } from './batchedOutput.js';
import { wantsColor } from './wantsColor.js';

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
  // JSON lines go to `out` a turn of the event loop at a time (BatchedOutput), not through
  // pino's default file-descriptor writer, which sent each request's line to a thread-pool
  // write of its own (bench/requestLogLine.ts). A test's stand-in gets each line at once.
  if (!wantsPretty(out, env, format))
    return pino(options, out === process.stdout ? new BatchedOutput(out) : out);
  // Loaded only here: a server writing JSON never pays for the prettifier's start-up. The
  // factory formats in this thread, so no worker thread and no lines lost at exit.
  const { prettyFactory } = createRequire(import.meta.url)('pino-pretty') as typeof import('pino-pretty');
  const prettify = prettyFactory({
    colorize: wantsColor(out, env),
    translateTime: 'SYS:HH:MM:ss.l',
    ignore: 'pid,hostname,name',
  });
  return pino(options, { write: (line: string) => out.write(prettify(line)) });
}

/** Writes one readable line at a level: the per-request line of a terminal. */
export type LineWriter = (level: 'debug' | 'info' | 'warn' | 'error', text: string) => void;

const pad = (n: number, w = 2) => String(n).padStart(w, '0');

/**
 * Readable lines written straight to `out`, looking as pino-pretty prints a message alone
 * (`[12:00:01.250] INFO: text`), without a JSON object built and parsed back in between: the
 * per-request line is written for every request, and that round trip cost more than serving
 * a binding GET (bench/requestLogLine.ts). The caller checks the logger's level first.
 */
export function lineWriter(
  out: LogOutput = process.stdout,
  env: NodeJS.ProcessEnv = process.env,
): LineWriter {
  const color = wantsColor(out, env);
  // pino-pretty's colours for its level names, so both kinds of line look alike.
  const paint = (code: number, name: string) => (color ? `\x1b[${code}m${name}\x1b[39m` : name);
  const tag = {
    debug: paint(34, 'DEBUG'),
    info: paint(32, 'INFO'),
    warn: paint(33, 'WARN'),
    error: paint(31, 'ERROR'),
  };
  return (level, text) => {
    const d = new Date();
    const time = `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}.${pad(d.getMilliseconds(), 3)}`;
    out.write(`[${time}] ${tag[level]}: ${text}\n`);
  };
}
