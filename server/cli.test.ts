import { readFileSync } from 'node:fs';
import { cp, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { banner, fixtureApps, main } from './cli.js';
import { options, parseConfig, testConfig } from './config.js';
import { fromRoot } from './core/root.js';
import { http } from './testing/http.js';
import { sourceEntry } from './testing/sourceBuild.js';
import { spawnTracked } from './testing/spawnTracked.js';
import { useTestServers } from './testing/useTestServers.js';

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
    // Each option shows its default once at most (help texts that explain a default keep theirs).
    for (const line of io.out().split('\n'))
      expect(line.match(/\(default/g)?.length ?? 0, line).toBeLessThan(2);
    expect(io.out()).not.toContain('(default: false)');
    expect(io.out()).toMatch(/^ {2}-p, --port <value> /m);
    expect(io.out()).toMatch(/^ {2}-h, --help /m);
  });

  it('refuses unknown commands, unknown flags and bad values with exit 2 and a hint', async () => {
    const io = capture();
    expect(await main(['serv'])).toBe(2);
    expect(io.err()).toContain("unknown command 'serv'");
    expect(await main(['serve', '--prot', '1'])).toBe(2);
    expect(io.err()).toContain("unknown option '--prot'; did you mean --port?");
    expect(io.err()).not.toContain('place it after');
    expect(await main(['binding', '--jsn'])).toBe(2);
    expect(io.err()).toContain('did you mean --json?');
    expect(await main(['serve', '--zzzzzz'])).toBe(2);
    expect(io.err()).not.toMatch(/--zzzzzz'; did you mean/);
    expect(await main(['serve', '--port', 'abc'])).toBe(2);
    expect(io.err()).toContain('--port');
    expect(await main(['serve', '--log-level', 'loud'])).toBe(2);
    expect(io.err()).toMatch(/choose fatal, error/);
    expect(await main(['serve', '--public-url', 'ftp://x'])).toBe(2);
  });
});

describe('--store', () => {
  it('accepts postgres:// and postgresql:// URLs from the flag or PARTNER_SIM_STORE, and nothing else', () => {
    expect(parseConfig({}).store).toBeUndefined();
    expect(parseConfig({ store: 'postgres://u@db/sim' }).store).toBe('postgres://u@db/sim');
    expect(parseConfig({}, { PARTNER_SIM_STORE: 'postgresql://db/sim' }).store).toBe('postgresql://db/sim');
    expect(() => parseConfig({ store: 'mysql://u:hunter2@db/sim' })).toThrow(/--store.*postgres:\/\//);
    expect(() => parseConfig({ store: 'mysql://u:hunter2@db/sim' })).not.toThrow(/hunter2/);
    expect(() => parseConfig({ store: 'postgres://db/x', 'in-memory': true })).toThrow(/exclude each other/);
  });

  it('names an unreachable database in one line, exit 1, without its password or a stack trace', async () => {
    const io = capture();
    expect(await main(['serve', '--store', 'postgres://sim:hunter2@127.0.0.1:1/sim', '--port', '0'])).toBe(1);
    const err = io.err();
    expect(err).toMatch(
      /^partner-sim serve: cannot use PostgreSQL at postgres:\/\/sim:\*\*\*@127\.0\.0\.1:1\/sim: .+\n$/,
    );
    expect(err).not.toContain('hunter2');
    expect(err.split('\n')).toHaveLength(2);
  });
});

/** `serve` as a child with stdout a pipe: everything it printed until it stopped on SIGTERM. */
async function servePiped(entry: string, args: string[]): Promise<string> {
  const proc = spawnTracked(process.execPath, [entry, 'serve', '--in-memory', '--port', '0', ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  proc.stdout!.on('data', (d: Buffer) => {
    out += d.toString();
    if (/listening on/.test(out) && proc.exitCode === null && !proc.killed) proc.kill('SIGTERM');
  });
  await new Promise((r) => proc.once('close', r));
  return out;
}

describe('start banner', () => {
  it('in a pipe is one JSON line (urls, state, fixture credentials), the shutdown line too; --log-format decides when given', async () => {
    const entry = await sourceEntry('cli');
    const lines = (await servePiped(entry, [])).trim().split('\n');
    const parsed = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    const first = parsed.find((p) => /listening on/.test(String(p.msg)))!;
    expect(first).toMatchObject({
      level: 30,
      name: 'partner-sim',
      urls: {
        us_base_url: expect.stringMatching(/\/developer\/api$/),
        dashboard: expect.stringMatching(/\/__admin\/ui$/),
      },
      state: 'in memory',
    });
    expect(first.credentials).toContainEqual({
      region: 'us',
      client_id: 'demo-client-us',
      secret_key: 'demo-secret-us-0000',
      api_key: 'demo-api-key-us-0000',
    });
    expect(parsed.at(-1)).toMatchObject({ signal: 'SIGTERM', msg: expect.stringContaining('stopping') });
    const pretty = await servePiped(entry, ['--log-format', 'pretty']);
    expect(pretty).toMatch(/^partner-sim listening on http:\/\/\S+\n {2}US base_url: /);
    expect(pretty).toContain('Demo credentials (fixture apps):');
    expect(pretty).toContain('partner-sim: SIGTERM, flushing state and stopping\n');
    const json = await servePiped(entry, ['--log-format', 'json']);
    for (const line of json.trim().split('\n')) expect(() => JSON.parse(line), line).not.toThrow();
  }, 60_000);

  it('names the Swagger UI and the dashboard', () => {
    const text = banner('http://127.0.0.1:1', testConfig(), []);
    expect(text).toContain('API docs:    http://127.0.0.1:1/docs  (Swagger UI)');
    expect(text).toContain('dashboard:   http://127.0.0.1:1/__admin/ui');
  });

  it('warns that an explicit --seed makes secrets guessable, and only then', () => {
    expect(banner('http://127.0.0.1:1', testConfig({ seed: 'demo' }), [])).toMatch(
      /WARNING: --seed "demo".*guessable/,
    );
    expect(banner('http://127.0.0.1:1', testConfig(), [])).not.toContain('WARNING');
    expect(parseConfig({}).seed).toBeUndefined();
    expect(parseConfig({ seed: 'x' }).seed).toBe('x');
  });
});

describe('docs/configuration.md', () => {
  it('documents every serve option with its environment variable, and no option that does not exist', () => {
    const doc = readFileSync(fromRoot('docs/configuration.md'), 'utf8');
    const rows = doc.split('\n').filter((l) => /^\| `--/.test(l));
    for (const o of options) {
      const row = rows.find((l) => l.startsWith(`| \`--${o.flag}\``));
      expect(row, `docs/configuration.md option table lacks --${o.flag}`).toBeDefined();
      if (o.env) expect(row, `docs/configuration.md row of --${o.flag} lacks ${o.env}`).toContain(o.env);
    }
    const documented = rows.map((l) => l.match(/^\| `--([a-z-]+)`/)?.[1]);
    expect(documented.sort()).toEqual(options.map((o) => o.flag).sort());
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

  it('reads the connection limits, durations included, and refuses a zero', () => {
    expect(parseConfig({})).toMatchObject({
      maxConnections: 2048,
      headersTimeoutMs: 20_000,
      bodyTimeoutMs: 30_000,
    });
    const c = parseConfig(
      { 'headers-timeout': '5s', 'max-connections': '64' },
      { PARTNER_SIM_BODY_TIMEOUT: '1500' },
    );
    expect(c).toMatchObject({ maxConnections: 64, headersTimeoutMs: 5000, bodyTimeoutMs: 1500 });
    expect(() => parseConfig({ 'max-connections': '0' })).toThrow(/--max-connections must be at least 1/);
    expect(() => parseConfig({ 'body-timeout': 'soon' })).toThrow(/--body-timeout/);
  });

  it('reads --housekeeping-tick as a duration from 50 ms to a minute, one second by default', () => {
    expect(parseConfig({}).housekeepingTickMs).toBe(1000);
    expect(parseConfig({ 'housekeeping-tick': '100ms' }).housekeepingTickMs).toBe(100);
    expect(parseConfig({}, { PARTNER_SIM_HOUSEKEEPING_TICK: '2s' }).housekeepingTickMs).toBe(2000);
    expect(() => parseConfig({ 'housekeeping-tick': '10ms' })).toThrow(/--housekeeping-tick.*50 ms/);
    expect(() => parseConfig({ 'housekeeping-tick': '2m' })).toThrow(/--housekeeping-tick/);
  });

  it('reads --allowed-hosts as a comma list of host names, and refuses what is not one', () => {
    expect(parseConfig({}).allowedHosts).toEqual([]);
    expect(parseConfig({ 'allowed-hosts': ' Sim, ci-sim:4010,,[::2]' }).allowedHosts).toEqual([
      'sim',
      'ci-sim:4010',
      '[::2]',
    ]);
    expect(parseConfig({}, { PARTNER_SIM_ALLOWED_HOSTS: '*' }).allowedHosts).toEqual(['*']);
    for (const bad of ['a b', 'http://sim', 'sim/x'])
      expect(() => parseConfig({ 'allowed-hosts': bad }), bad).toThrow(/allowed-hosts.*not a host name/);
  });
});

describe('start banner', () => {
  const servers = useTestServers();

  it('prints the fixture apps only, not apps created at run time, after a restart too', async () => {
    const dir = await servers.tempDir();
    const first = await servers.start({ inMemory: false, dataDir: dir });
    const made = await http('POST', `${first.admin}/apps`, { json: { client_id: 'runtime-app' } });
    expect(made.status).toBe(201);
    await first.stop();
    const again = await servers.start({ inMemory: false, dataDir: dir });
    const apps = again.services.apps.list();
    expect(apps.map((a) => a.client_id)).toContain('runtime-app');
    const text = banner(again.url, again.config, await fixtureApps(again.config, apps));
    expect(text).toContain('client_id=demo-client-us  secret_key=demo-secret-us-0000');
    expect(text).toContain('other-partner-us');
    expect(text).not.toContain('runtime-app');
    expect(text).not.toContain(made.body.secret_key);
    expect(text).not.toContain(made.body.api_key);
  });
});

describe('start-up with a broken fixture', () => {
  const servers = useTestServers();

  it('exits 1 with one line naming file and field, no stack trace', async () => {
    const dir = await servers.tempDir();
    await cp(fromRoot('fixtures'), dir, { recursive: true });
    const list = JSON.parse(await readFile(join(dir, 'devices.json'), 'utf8'));
    list[3].is_bind = 'maybe';
    await writeFile(join(dir, 'devices.json'), JSON.stringify(list));
    const io = capture();
    const code = await main([
      'serve',
      '--in-memory',
      '--port',
      '0',
      '--log-level',
      'silent',
      '--fixtures',
      dir,
    ]);
    expect(code).toBe(1);
    const lines = io.err().trimEnd().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^partner-sim serve: broken fixture: fixtures\/devices\.json: \[3\]\.is_bind: /);
    expect(io.out()).not.toContain('listening');
  });

  it('reads --upload-filetypes as a comma list of lowercase extensions', () => {
    expect(parseConfig({}, {}).uploadFiletypes).toEqual([]);
    expect(parseConfig({}, { PARTNER_SIM_UPLOAD_FILETYPES: 'wav, m4a,' }).uploadFiletypes).toEqual([
      'wav',
      'm4a',
    ]);
    expect(() => parseConfig({ 'upload-filetypes': 'wav,.ogg' })).toThrow(/upload-filetypes.*"\.ogg"/);
  });
});
