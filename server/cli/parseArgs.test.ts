import { describe, expect, it } from 'vitest';
import { parseArgs } from './parseArgs.js';

const failure = (f: () => unknown): Error & { code?: string } => {
  try {
    f();
  } catch (e) {
    return e as Error & { code?: string };
  }
  throw new Error('expected a throw');
};

describe('the shared CLI parsing', () => {
  it('gives -h to --help and -p to --port on every command that has them', () => {
    const options = { port: { type: 'string' }, help: { type: 'boolean' } } as const;
    expect(parseArgs({ args: ['-p', '5000', '-h'], options }).values).toEqual({ port: '5000', help: true });
    // A command without --help declared still answers -h.
    expect(parseArgs({ args: ['-h'], options: {} }).values).toEqual({ help: true });
  });

  it('adds --base-url to a command that takes --target: the same as --target <url>', () => {
    const options = { target: { type: 'string', default: 'sim' } } as const;
    expect(parseArgs({ args: [], options }).values).toEqual({ target: 'sim' });
    expect(parseArgs({ args: ['--base-url', 'http://127.0.0.1:1'], options }).values).toEqual({
      target: 'http://127.0.0.1:1',
    });
    expect(parseArgs({ args: ['--target', 'url', '--base-url', 'http://h:1'], options }).values).toEqual({
      target: 'http://h:1',
    });
    const both = failure(() => parseArgs({ args: ['--target', 'us', '--base-url', 'http://h:1'], options }));
    expect(both.code).toMatch(/^ERR_PARSE_ARGS/);
    expect(both.message).toBe('--base-url http://h:1 and --target us name two targets: give one');
    expect(failure(() => parseArgs({ args: ['--target', 'url'], options })).message).toBe(
      '--target url needs --base-url <url>',
    );
  });

  it("answers in its own words, never Node's 'place it after --'", () => {
    const options = { port: { type: 'string' }, json: { type: 'boolean' } } as const;
    const cases: [string[], string][] = [
      [['--prot', '1'], "unknown option '--prot'; did you mean --port?"],
      [['--zzzzzz'], "unknown option '--zzzzzz'"],
      [['--port'], '--port needs a value'],
      [
        ['--port', '--json'],
        "--port needs a value, and the next argument is an option (for a value starting with '-', write --port=-…)",
      ],
      [['--json=1'], '--json takes no value'],
    ];
    for (const [args, message] of cases) {
      const err = failure(() => parseArgs({ args, options, allowPositionals: true }));
      expect(err.code, args.join(' ')).toMatch(/^ERR_PARSE_ARGS/);
      expect(err.message, args.join(' ')).toBe(message);
    }
    expect(failure(() => parseArgs({ args: ['stray'], options })).message).toBe(
      "unexpected argument 'stray': this command takes options only",
    );
  });
});
