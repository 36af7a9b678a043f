// Starts the files the Docker image would hold, outside Docker (there is no engine here):
// lays them out with the script the image build runs, then runs the Dockerfile's own
// ENTRYPOINT + CMD with its ENV (read from the Dockerfile, not retyped), the admin token set,
// runs its HEALTHCHECK command until it passes, and stops the server with SIGTERM as
// `docker stop` does. Fails on any step.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** The final stage of a Dockerfile: its ENV, WORKDIR, ENTRYPOINT, CMD and HEALTHCHECK CMD. */
export function finalStage(text) {
  const lines = text
    .replace(/\\\r?\n/g, ' ')
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'));
  const stage = lines.slice(lines.map((l) => /^FROM\s/i.test(l)).lastIndexOf(true));
  const out = { env: {}, workdir: '/', entrypoint: [], cmd: [], healthcheck: [] };
  for (const line of stage) {
    const [, word, rest] = line.match(/^(\w+)\s+(.*)$/) ?? [];
    switch (word?.toUpperCase()) {
      case 'ENV':
        for (const [, k, v] of rest.matchAll(/(\w+)=("(?:[^"\\]|\\.)*"|\S+)/g))
          out.env[k] = v.startsWith('"') ? JSON.parse(v) : v;
        break;
      case 'WORKDIR':
        out.workdir = rest;
        break;
      case 'ENTRYPOINT':
        out.entrypoint = JSON.parse(rest);
        break;
      case 'CMD':
        out.cmd = JSON.parse(rest);
        break;
      case 'HEALTHCHECK':
        out.healthcheck = JSON.parse(rest.slice(rest.indexOf('CMD') + 3).trim());
        break;
    }
  }
  return out;
}

const freePort = () =>
  new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });

async function main() {
  const started = Date.now();
  const image = finalStage(readFileSync('Dockerfile', 'utf8'));
  if (!image.entrypoint.length || !image.healthcheck.length)
    throw new Error('Dockerfile: no ENTRYPOINT or HEALTHCHECK');
  const work = mkdtempSync(join(tmpdir(), 'partner-sim-image-'));
  let server;
  try {
    // WORKDIR /app of the image is <work>/app here; the data volume is <work>/data.
    const app = join(work, 'app');
    execFileSync('docker/assemble-app.sh', ['.', app], { stdio: 'inherit' });
    for (const unwanted of ['server/core', 'contracts', 'bench', 'sdk-tests', 'tsconfig.json'])
      if (existsSync(join(app, unwanted))) throw new Error(`the image would hold ${unwanted}`);
    mkdirSync(join(app, 'reports'));
    // As in the image, the simulator may write only to the volume (and reports/).
    spawnSync('chmod', ['-R', 'a-w', join(app, 'dist'), join(app, 'node_modules')]);
    chmodSync(app, 0o555);
    const data = join(work, 'data');
    mkdirSync(data);
    const port = await freePort();
    const token = 'image-smoke-token';
    const env = {
      ...process.env,
      ...image.env,
      // Loopback only outside a container; the port is a free one; the volume is <work>/data.
      HOST: '127.0.0.1',
      PORT: String(port),
      PARTNER_SIM_DATA_DIR: data,
      PARTNER_SIM_ADMIN_TOKEN: token,
      // Outside a container tini is not PID 1: let it reap as a subreaper instead (and not warn).
      TINI_SUBREAPER: '1',
    };
    const [command, ...args] = [...image.entrypoint, ...image.cmd];
    if (!existsSync(command))
      throw new Error(`${command} (the image's PID 1) is not installed here: apt-get install tini`);
    console.log(`image smoke: ${[command, ...args].join(' ')} (in ${app})`);
    server = spawn(command, args, { cwd: app, env, stdio: ['ignore', 'pipe', 'inherit'] });
    let log = '';
    server.stdout.on('data', (c) => {
      log += c;
    });
    const exited = new Promise((r) => server.once('exit', (code, signal) => r({ code, signal })));

    const [hc, ...hcArgs] = image.healthcheck;
    let healthy = false;
    for (let i = 0; i < 100 && !healthy; i++) {
      healthy = spawnSync(hc, hcArgs, { cwd: app, env, timeout: 3000 }).status === 0;
      if (!healthy) await new Promise((r) => setTimeout(r, 200));
    }
    if (!healthy) throw new Error(`HEALTHCHECK never passed; server output:\n${log}`);
    const base = `http://127.0.0.1:${port}`;
    const refused = await fetch(`${base}/__admin/apps`);
    const allowed = await fetch(`${base}/__admin/apps`, { headers: { authorization: `Bearer ${token}` } });
    if (refused.status !== 401 || allowed.status !== 200)
      throw new Error(`admin token not in force: ${refused.status} without, ${allowed.status} with it`);
    const docs = await fetch(`${base}/docs`);
    if (docs.status !== 200) throw new Error(`/docs answered ${docs.status}`);

    server.kill('SIGTERM');
    const timeout = setTimeout(() => server.kill('SIGKILL'), 10_000);
    const { code, signal } = await exited;
    clearTimeout(timeout);
    server = undefined;
    if (code !== 0) throw new Error(`SIGTERM ended it with ${code ?? signal}, not 0; output:\n${log}`);
    if (readdirSync(data).length === 0) throw new Error('nothing was written to the data volume');
    console.log(
      `image smoke: healthy with --admin-token set, /docs served, state in the volume, stopped cleanly by SIGTERM, in ${Math.round((Date.now() - started) / 1000)} s`,
    );
  } finally {
    server?.kill('SIGKILL');
    spawnSync('chmod', ['-R', 'u+w', work]);
    rmSync(work, { recursive: true, force: true });
  }
}

if (process.argv[1]?.endsWith('image-smoke.mjs')) {
  main().catch((e) => {
    console.error(`image smoke FAILED: ${e.message}`);
    process.exit(1);
  });
}
