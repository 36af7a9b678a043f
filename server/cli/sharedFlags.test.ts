import { describe, expect, it } from 'vitest';
import { runCli } from '../testing/cliRun.js';
import { EXAMPLES } from './examples.js';

// Which shared flags each command takes (issue 47: "every command accepts the shared flags").
// serve is the simulator every --target names, so it takes none of --target; its report is its
// banner, JSON in a pipe (--log-format). A region matters where a partner app is acted for.
const TAKES: Record<string, readonly string[]> = {
  serve: ['--admin-token'],
  contract: ['--target', '--base-url', '--region', '--json', '--admin-token'],
  compare: ['--target', '--base-url', '--json', '--admin-token'],
  transcribe: ['--target', '--base-url', '--region', '--json'],
  binding: ['--target', '--base-url', '--region', '--json'],
  ca: ['--target', '--base-url', '--json'],
  health: ['--target', '--base-url', '--json', '--admin-token'],
};
// The arguments a command needs besides the flag under test.
const ARGS: Record<string, string[]> = {
  compare: ['fixtures/recordings/readme-walkthrough.har'],
  transcribe: ['fixtures/audio/meeting.mp3'],
  binding: ['8810B30227290003'],
};

describe('the shared flags, on every command', () => {
  it('lists every command of the CLI', () => {
    expect(Object.keys(TAKES).sort()).toEqual(Object.keys(EXAMPLES).sort());
  });

  it.each(Object.entries(TAKES))('%s --help documents its shared flags', async (cmd, flags) => {
    const { code, out } = await runCli(cmd, '--help');
    expect(code).toBe(0);
    const options = out.split('\nExamples:\n')[0]!;
    for (const flag of flags)
      expect(options, `${cmd} ${flag}`).toMatch(new RegExp(`^\\s+(-\\w, )?${flag}\\b`, 'm'));
  });

  it.each(
    Object.entries(TAKES).filter(([, f]) => f.includes('--target')),
  )('%s --target <nonsense> is a usage error naming --target, not an unknown option', async (cmd) => {
    const r = await runCli(cmd, ...(ARGS[cmd] ?? []), '--target', 'ftp://nowhere.invalid');
    expect(r.code).toBe(2);
    expect(r.err).toContain('--target');
    expect(r.err).not.toContain('unknown option');
  });
});
