import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { http } from '../testing/http.js';
import { type ServeChild, spawnServe } from '../testing/serveChild.js';
import { sourceEntry } from '../testing/sourceBuild.js';
import { execFileTracked } from '../testing/spawnTracked.js';

// What `serve` pays for at start (issue 33): the bundled CLI, as `npm run build` and the
// tests' source build make it, run as a child process that reports the Node built-ins it
// loaded by the time it is told to stop.
const run = execFileTracked;

let work: string;
let entry: string;
let child: ServeChild;
let report: string;

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'partner-sim-bundle-'));
  entry = await sourceEntry('cli');
  report = join(work, 'modules.txt');
  const preload = join(work, 'report.cjs');
  await writeFile(
    preload,
    `const fs = require('node:fs');
process.on('SIGUSR2', () => {
  fs.writeFileSync(${JSON.stringify(`${report}.tmp`)}, process.moduleLoadList.join('\\n'));
  fs.renameSync(${JSON.stringify(`${report}.tmp`)}, ${JSON.stringify(report)});
});\n`,
  );
  child = await spawnServe(entry, ['--in-memory', '--port', '0', '--log-level', 'silent'], {
    nodeArgs: ['--require', preload],
  });
}, 120_000);

afterAll(async () => {
  child?.proc.kill('SIGTERM');
  await child?.exited;
  await rm(work, { recursive: true, force: true });
});

/** The built-ins the child has loaded so far. */
async function loadedModules(): Promise<string[]> {
  child.proc.kill('SIGUSR2');
  for (let i = 0; i < 100; i++) {
    const text = await readFile(report, 'utf8').catch(() => '');
    if (text) return text.split('\n');
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('no module report from the child');
}

/** Whether a bare HTTP server, listening in this Node, has loaded node:tls. */
async function bareServerLoadsTls(): Promise<boolean> {
  const script = `import http from 'node:http';
const s = http.createServer().listen(0, '127.0.0.1', () => {
  process.stdout.write(String(process.moduleLoadList.includes('NativeModule tls')));
  s.close();
});`;
  const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script]);
  return stdout === 'true';
}

describe('the bundled CLI', () => {
  it('starts without node:https or node:tls (an https webhook, file_url or --https loads them)', async () => {
    const loaded = await loadedModules();
    expect(loaded).toContain('NativeModule http');
    expect(loaded).not.toContain('NativeModule https');
    // Node 24's own HTTP server loads tls (a bare http.createServer().listen() does): only what
    // the simulator adds counts, so tls is held to what a bare server in the same Node loads.
    if (!(await bareServerLoadsTls())) expect(loaded).not.toContain('NativeModule tls');
  });

  it('leaves iconv-lite out, and still reads a UTF-16 JSON body through the installed one', async () => {
    const text = await readFile(entry, 'utf8');
    expect(text).not.toContain('node_modules/iconv-lite/');
    const body = Buffer.from(JSON.stringify({ client_id: 'utf16-bundle' }), 'utf16le');
    const r = await fetch(`${child.url}/__admin/apps`, {
      method: 'POST',
      headers: { 'content-type': 'application/json; charset=utf-16le' },
      body,
    });
    expect(r.status).toBe(201);
    expect(((await r.json()) as { client_id: string }).client_id).toBe('utf16-bundle');
    const apps = await http('GET', `${child.url}/__admin/apps`);
    expect((apps.body as { client_id: string }[]).map((a) => a.client_id)).toContain('utf16-bundle');
  });

  it('is an ES module by its package\'s "type", not found so by a CommonJS attempt first', async () => {
    // Without the "type", Node reads and compiles the file as CommonJS before it loads it as a
    // module; with detection off that shows as a failure.
    const { stdout } = await run(process.execPath, ['--no-experimental-detect-module', entry, '--version']);
    expect(stdout).toMatch(/^\d+\.\d+\.\d+/);
  });
});
