import { stripVTControlCharacters } from 'node:util';
import { describe, expect, it } from 'vitest';
import { createLogger, lineWriter, wantsPretty } from './logger.js';

const capture = (isTTY: boolean) => {
  const lines: string[] = [];
  return { isTTY, lines, write: (l: string) => lines.push(l) };
};

describe('createLogger', () => {
  it('writes readable lines, not JSON, to a terminal outside tests', () => {
    const out = capture(true);
    createLogger('info', out, {}).info({ port: 4010 }, 'listening now');
    expect(out.lines).toHaveLength(1);
    const line = stripVTControlCharacters(out.lines[0]!);
    expect(line).toContain('listening now');
    expect(line).toMatch(/INFO/);
    expect(line).toContain('port: 4010');
    expect(() => JSON.parse(line)).toThrow();
  });

  it('writes one JSON object per line when the output is not a terminal', () => {
    const out = capture(false);
    createLogger('info', out, {}).warn({ sweeper: 'x' }, 'housekeeping failed');
    const entry = JSON.parse(out.lines[0]!);
    expect(entry).toMatchObject({ level: 40, name: 'partner-sim', sweeper: 'x', msg: 'housekeeping failed' });
  });

  it('stays JSON in tests even on a terminal, and keeps the level', () => {
    expect(wantsPretty({ isTTY: true, write: () => 0 }, { VITEST: 'true' })).toBe(false);
    expect(wantsPretty({ isTTY: true, write: () => 0 }, { NODE_ENV: 'test' })).toBe(false);
    const out = capture(true);
    const logger = createLogger('warn', out, {});
    logger.info('hidden');
    expect(out.lines).toEqual([]);
  });
});

describe('log format', () => {
  it('follows --log-format over the terminal test', () => {
    expect(wantsPretty({ isTTY: false, write: () => 0 }, {}, 'pretty')).toBe(true);
    expect(wantsPretty({ isTTY: true, write: () => 0 }, {}, 'json')).toBe(false);
    expect(wantsPretty({ isTTY: true, write: () => 0 }, {}, 'auto')).toBe(true);
  });

  it('writes a readable line as pino-pretty shows a message, colours on a terminal only', () => {
    const plain = capture(false);
    lineWriter(plain, {})('info', 'GET /x 200 1ms');
    expect(plain.lines).toEqual([
      expect.stringMatching(/^\[\d\d:\d\d:\d\d\.\d{3}\] INFO: GET \/x 200 1ms\n$/),
    ]);
    const tty = capture(true);
    lineWriter(tty, {})('info', 'GET /x 200 1ms');
    expect(tty.lines[0]).toContain('\x1b[32mINFO');
    expect(stripVTControlCharacters(tty.lines[0]!)).toMatch(/^\[[\d:.]{12}\] INFO: GET \/x 200 1ms\n$/);
  });

  it('writes no colour codes in a pipe, even as readable lines, nor with NO_COLOR on a terminal', () => {
    const piped = capture(false);
    createLogger('info', piped, {}, 'pretty').warn('slow engine');
    lineWriter(piped, {})('error', 'GET /x 500 1ms');
    const noColor = capture(true);
    createLogger('info', noColor, { NO_COLOR: '1' }).warn('slow engine');
    lineWriter(noColor, { NO_COLOR: '1' })('warn', 'GET /x 404 1ms');
    for (const line of [...piped.lines, ...noColor.lines]) expect(line).toBe(stripVTControlCharacters(line));
    expect(piped.lines[0]).toMatch(/WARN.*slow engine/);
    expect(noColor.lines[1]).toMatch(/\] WARN: GET \/x 404 1ms\n$/);
    expect(piped.lines[1]).toMatch(/\] ERROR: GET \/x 500 1ms\n$/);
    // FORCE_COLOR wins over the pipe: a CI log viewer that renders colours asks for them.
    const forced = capture(false);
    lineWriter(forced, { FORCE_COLOR: '1' })('warn', 'GET /x 404 1ms');
    expect(forced.lines[0]).toContain('\x1b[33mWARN');
  });
});
