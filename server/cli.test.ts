import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { banner, main } from './cli.js';
import { options, parseConfig, testConfig } from './config.js';
import { fromRoot } from './core/root.js';

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

describe('partner-sim CLI', () => {
  it('prints the commands with --help and every serve option with serve --help', async () => {
    const io = capture();
    expect(await main(['--help'])).toBe(0);
    expect(io.out()).toContain('serve');
    expect(await main(['serve', '--help'])).toBe(0);
    for (const flag of [
      '--port',
      '--host',
      '--data-dir',
      '--in-memory',
      '--seed',
      '--fixtures',
      '--public-url',
      '--log-level',
    ]) {
      expect(io.out()).toContain(flag);
    }
  });

  it('refuses unknown commands, unknown flags and bad values with exit 2 and a hint', async () => {
    const io = capture();
    expect(await main(['serv'])).toBe(2);
    expect(io.err()).toContain("unknown command 'serv'");
    expect(await main(['serve', '--prot', '1'])).toBe(2);
    expect(await main(['serve', '--port', 'abc'])).toBe(2);
    expect(io.err()).toContain('--port');
    expect(await main(['serve', '--log-level', 'loud'])).toBe(2);
    expect(io.err()).toMatch(/choose fatal, error/);
    expect(await main(['serve', '--public-url', 'ftp://x'])).toBe(2);
  });
});

describe('start banner', () => {
  it('warns that an explicit --seed makes secrets guessable, and only then', () => {
    expect(banner('http://127.0.0.1:1', testConfig({ seed: 'demo' }), [])).toMatch(
      /WARNING: --seed "demo".*guessable/,
    );
    expect(banner('http://127.0.0.1:1', testConfig(), [])).not.toContain('WARNING');
    expect(parseConfig({}).seed).toBeUndefined();
    expect(parseConfig({ seed: 'x' }).seed).toBe('x');
  });
});

describe('README', () => {
  it('documents every serve option with its environment variable', () => {
    const readme = readFileSync(fromRoot('README.md'), 'utf8');
    for (const o of options) {
      const row = readme.split('\n').find((l) => l.startsWith(`| \`--${o.flag}\``));
      expect(row, `README CLI table lacks --${o.flag}`).toBeDefined();
      if (o.env) expect(row, `README row of --${o.flag} lacks ${o.env}`).toContain(o.env);
    }
  });
});

describe('parseConfig', () => {
  it('lets flags win over environment over defaults', () => {
    expect(parseConfig({}, {}).port).toBe(4010);
    expect(parseConfig({}, { PORT: '5000' }).port).toBe(5000);
    expect(parseConfig({ port: '6000' }, { PORT: '5000' }).port).toBe(6000);
    expect(parseConfig({}, { PARTNER_SIM_IN_MEMORY: 'true' }).inMemory).toBe(true);
    expect(parseConfig({ 'transcription-delay': 'instant' }).transcriptionDelay).toBe(0);
    expect(parseConfig({ 'public-url': 'http://sim.local:8080/' }).publicUrl).toBe('http://sim.local:8080');
  });
});
