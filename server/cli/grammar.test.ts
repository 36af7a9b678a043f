import { afterEach, describe, expect, it, vi } from 'vitest';
import { main } from '../cli.js';
import { options, parseConfig } from '../config.js';
import { runBinding } from './binding.js';
import { EXAMPLES } from './examples.js';
import { parseArgs } from './parseArgs.js';
import { serveFlags, serveValues } from './serveFlags.js';
import { SERVE_GROUPS } from './serveHelp.js';
import { runTranscribe } from './transcribe.js';

function capture() {
  const out: string[] = [];
  const err: string[] = [];
  vi.spyOn(process.stdout, 'write').mockImplementation((s) => {
    out.push(String(s));
    return true;
  });
  vi.spyOn(process.stderr, 'write').mockImplementation((s) => {
    err.push(String(s));
    return true;
  });
  return { out: () => out.join(''), err: () => err.join('') };
}

afterEach(() => {
  vi.restoreAllMocks();
});

/** A client command's streams, kept as text. */
function streamsFor() {
  const t = { out: '', err: '' };
  const writer = (key: 'out' | 'err') => ({
    write: (s: string) => {
      t[key] += s;
      return true;
    },
  });
  return { t, streams: { stdout: writer('out'), stderr: writer('err'), env: {} } };
}

describe('one CLI grammar: commands and help', () => {
  it('names the command probably meant', async () => {
    const io = capture();
    expect(await main(['serv'])).toBe(2);
    expect(await main(['transcibe'])).toBe(2);
    expect(await main(['zzzzzz'])).toBe(2);
    expect(io.err()).toContain("unknown command 'serv'; did you mean 'serve'?");
    expect(io.err()).toContain("did you mean 'transcribe'?");
    expect(io.err()).not.toMatch(/'zzzzzz'; did you mean/);
  });

  it("prints a command's own help for `help <command>`, as for `<command> --help`", async () => {
    for (const cmd of Object.keys(EXAMPLES)) {
      const io = capture();
      expect(await main(['help', cmd])).toBe(0);
      expect(await main([cmd, '--help'])).toBe(0);
      const [viaHelp, viaFlag] = io.out().split(/(?=^Usage: partner-sim )/m);
      expect(viaHelp).toMatch(new RegExp(`^Usage: partner-sim ${cmd} `));
      expect(viaHelp).toBe(viaFlag);
      vi.restoreAllMocks();
    }
    const io = capture();
    expect(await main(['help', 'serv'])).toBe(2);
    expect(io.err()).toContain("did you mean 'serve'?");
  });

  it('ends every help with examples whose flags the same help documents', async () => {
    for (const [cmd, lines] of Object.entries(EXAMPLES)) {
      const io = capture();
      expect(await main([cmd, '-h'])).toBe(0);
      const help = io.out();
      const [options, examples] = help.split('\nExamples:\n') as [string, string];
      expect(examples, cmd).toBeDefined();
      for (const line of lines) {
        expect(examples).toContain(line);
        expect(line.startsWith(`partner-sim ${cmd}`), line).toBe(true);
        const command = line.split('#')[0]!;
        for (const flag of command.match(/(?<=\s)--[a-z-]+/g) ?? [])
          expect(options, `${cmd}: ${flag}`).toMatch(new RegExp(`${flag}\\b`));
      }
      vi.restoreAllMocks();
    }
  });

  it('groups serve --help by concern, every option in exactly one group', async () => {
    const placed = SERVE_GROUPS.flatMap(([, flags]) => flags);
    expect(new Set(placed).size).toBe(placed.length);
    for (const o of options) expect(placed).toContain(o.flag);
    const io = capture();
    expect(await main(['serve', '--help'])).toBe(0);
    expect(io.out()).toMatch(/^Logs:\n {2}--log-level <value>/m);
    expect(io.out()).toMatch(/^HTTPS and the proxy:\n {2}--https /m);
    expect(io.out()).not.toContain('Other:');
  });
});

describe('one CLI grammar: switches', () => {
  it('--no-<flag> turns off a switch that is on by default, as its help shows', async () => {
    const { values } = parseArgs({ args: ['--no-access-log'], options: serveFlags });
    expect(parseConfig(serveValues(values)).accessLog).toBe(false);
    expect(parseConfig(serveValues({})).accessLog).toBe(true);
    // A switch off by default has no --no- form (nothing to turn off).
    expect(() => parseArgs({ args: ['--no-https'], options: serveFlags })).toThrow(/unknown option/);
    const io = capture();
    expect(await main(['serve', '--help'])).toBe(0);
    expect(io.out()).toMatch(/^ {2}--\[no-\]access-log /m);
  });
});

describe('one CLI grammar: durations', () => {
  it('take units on every duration, a bare number keeping its documented unit', () => {
    expect(parseConfig({ 'partner-token-ttl': '1h' }).partnerTokenTtlS).toBe(3600);
    expect(parseConfig({ 'partner-token-ttl': '90' }).partnerTokenTtlS).toBe(90);
    expect(parseConfig({}, { PARTNER_SIM_UPLOAD_TTL: '2d' }).uploadTtlS).toBe(172_800);
    expect(parseConfig({ 'transcription-delay': '2s' }).transcriptionDelay).toBe(2000);
    expect(parseConfig({ 'transcription-delay': '250' }).transcriptionDelay).toBe(250);
    expect(() => parseConfig({ 'presign-expiry': '1500ms' })).toThrow(/--presign-expiry.*whole seconds/);
    expect(() => parseConfig({ 'refresh-token-ttl': 'soon' })).toThrow(/--refresh-token-ttl.*"soon"/);
  });

  it('health --timeout and transcribe --deadline take units, and errors name the flag typed', async () => {
    const io = capture();
    // Nothing listens on port 9 of loopback: a refusal, not a usage error, proves 2s was read.
    expect(await main(['health', '--port', '9', '--timeout', '2s'])).toBe(1);
    expect(await main(['health', '--port', '9', '--timeout', 'soon'])).toBe(2);
    expect(io.err()).toMatch(/partner-sim health: --timeout soon: expected a duration/);
    const { t, streams } = streamsFor();
    // The deadline parses; then the file is missing (exit 2 for the file, not for --deadline).
    expect(await runTranscribe(['missing.mp3', '--deadline', '2m'], streams)).toBe(2);
    expect(t.err).toContain('cannot read the audio file');
    expect(await runTranscribe(['missing.mp3', '--deadline', '2x'], streams)).toBe(2);
    expect(t.err).toMatch(/--deadline 2x: expected a duration .* or a number of seconds/);
  });
});

describe('one CLI grammar: targets, regions, --json', () => {
  it('takes --target live with --region, as contract does, and names the flag in errors', async () => {
    const a = streamsFor();
    expect(await runBinding(['8810B30227290003', '--target', 'live', '--region', 'jp'], a.streams)).toBe(2);
    expect(a.t.err).toContain('--target live needs these environment variables: PARTNER_CLIENT_ID');
    const b = streamsFor();
    expect(await runBinding(['8810B30227290003', '--target', 'live', '--region', 'cn'], b.streams)).toBe(2);
    expect(b.t.err).toContain("--region must be us, jp, eu or sg (got 'cn')");
    const c = streamsFor();
    expect(await runBinding(['8810B30227290003', '--target', 'us', '--region', 'jp'], c.streams)).toBe(2);
    expect(c.t.err).toContain('--target us and --region jp name two regions');
  });

  it('health --json prints one JSON line, also when nothing answers', async () => {
    const out = capture();
    expect(await main(['health', '--port', '9', '--json', '--timeout', '1s'])).toBe(1);
    expect(JSON.parse(out.out())).toMatchObject({ url: 'http://127.0.0.1:9/__admin/health', ok: false });
  });
});
