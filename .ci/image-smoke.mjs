// Starts the files the Docker image would hold, outside Docker (there is no engine here):
// lays them out with the script the image build runs, then runs the Dockerfile's own
// ENTRYPOINT + CMD with its ENV (read from the Dockerfile, not retyped) in each listener mode
// (--https, --https-only, the admin token set), runs its HEALTHCHECK command until it passes,
// and stops the server with SIGTERM as `docker stop` does. Prints the size /app adds to the
// base image. Fails on any step.
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

/** Kilobytes under `dir` (du -sk): the image's /app layer, for the size estimate. */
const kib = (dir) => Number(execFileSync('du', ['-sk', dir], { encoding: 'utf8' }).split('\t')[0]);

/**
 * Starts the image's command line with `modeEnv` added, runs its HEALTHCHECK until it passes
 * (or fails after 20 s), and returns the running server with its output so far.
 */
async function startHealthy(image, app, baseEnv, modeEnv, mode) {
  const env = { ...baseEnv, ...modeEnv };
  const [command, ...args] = [...image.entrypoint, ...image.cmd];
  const server = spawn(command, args, { cwd: app, env, stdio: ['ignore', 'pipe', 'inherit'] });
  const state = { server, log: '' };
  server.stdout.on('data', (c) => {
    state.log += c;
  });
  state.exited = new Promise((r) => server.once('exit', (code, signal) => r({ code, signal })));
  const [hc, ...hcArgs] = image.healthcheck;
  let check;
  for (let i = 0; i < 100; i++) {
    check = spawnSync(hc, hcArgs, { cwd: app, env, timeout: 3000, encoding: 'utf8' });
    if (check.status === 0) break;
    await new Promise((r) => setTimeout(r, 200));
  }
  if (check.status !== 0) {
    server.kill('SIGKILL');
    throw new Error(
      `${mode}: HEALTHCHECK never passed (${check.stderr.trim()}); server output:\n${state.log}`,
    );
  }
  console.log(`image smoke: ${mode}: HEALTHCHECK passed: ${check.stdout.trim()}`);
  return state;
}

async function stop(state) {
  state.server.kill('SIGTERM');
  const timeout = setTimeout(() => state.server.kill('SIGKILL'), 10_000);
  const { code, signal } = await state.exited;
  clearTimeout(timeout);
  return { code, signal };
}

async function main() {
  const started = Date.now();
  const image = finalStage(readFileSync('Dockerfile', 'utf8'));
  if (!image.entrypoint.length || !image.healthcheck.length)
    throw new Error('Dockerfile: no ENTRYPOINT or HEALTHCHECK');
  const work = mkdtempSync(join(tmpdir(), 'partner-sim-image-'));
  let running;
  try {
    // WORKDIR /app of the image is <work>/app here; the data volume is <work>/data.
    const app = join(work, 'app');
    execFileSync('docker/assemble-app.sh', ['.', app], { stdio: 'inherit' });
    const unwanted = ['server/core', 'contracts', 'bench', 'sdk-tests', 'tsconfig.json'];
    // Run-time files only: the contract runner (vitest) and the whole Swagger UI package stay out.
    unwanted.push(
      'node_modules/vitest',
      'node_modules/vite',
      'node_modules/swagger-ui-dist',
      'node_modules/xmlbuilder2',
    );
    for (const u of unwanted) if (existsSync(join(app, u))) throw new Error(`the image would hold ${u}`);
    const modules = readdirSync(join(app, 'node_modules')).filter((n) => !n.startsWith('.')).length;
    console.log(
      `image smoke: /app would add ${(kib(app) / 1024).toFixed(1)} MB to the Node base image (FROM) ` +
        `(node_modules ${(kib(join(app, 'node_modules')) / 1024).toFixed(1)} MB, ${modules} top-level entries; ` +
        `dist ${(kib(join(app, 'dist')) / 1024).toFixed(1)} MB); tini adds about 0.1 MB`,
    );
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
      // Outside a container tini is not PID 1: let it reap as a subreaper instead (and not warn).
      TINI_SUBREAPER: '1',
    };
    const [command, ...args] = [...image.entrypoint, ...image.cmd];
    if (!existsSync(command))
      throw new Error(`${command} (the image's PID 1) is not installed here: apt-get install tini`);
    console.log(`image smoke: ${[command, ...args].join(' ')} (in ${app})`);

    // The listener modes a container runs in, set as the image's users set them: by environment.
    for (const [mode, modeEnv] of [
      ['--https', { PARTNER_SIM_HTTPS: '1' }],
      ['--https-only', { PARTNER_SIM_HTTPS: '1', PARTNER_SIM_HTTPS_ONLY: '1' }],
    ]) {
      const state = await startHealthy(image, app, env, modeEnv, mode);
      const { code, signal } = await stop(state);
      if (code !== 0) throw new Error(`${mode}: SIGTERM ended it with ${code ?? signal}, not 0`);
    }

    running = await startHealthy(image, app, env, { PARTNER_SIM_ADMIN_TOKEN: token }, '--admin-token');
    const base = `http://127.0.0.1:${port}`;
    const refused = await fetch(`${base}/__admin/apps`);
    const allowed = await fetch(`${base}/__admin/apps`, { headers: { authorization: `Bearer ${token}` } });
    if (refused.status !== 401 || allowed.status !== 200)
      throw new Error(`admin token not in force: ${refused.status} without, ${allowed.status} with it`);
    const docs = await fetch(`${base}/docs`);
    if (docs.status !== 200) throw new Error(`/docs answered ${docs.status}`);
    const bundle = (await docs.text()).match(/src="([^"]*swagger-ui-bundle\.js)"/)?.[1];
    const asset = bundle && (await fetch(`${base}${bundle}`));
    if (!asset || asset.status !== 200)
      throw new Error(`/docs's Swagger UI bundle answered ${asset?.status}`);

    const { code, signal } = await stop(running);
    running = undefined;
    if (code !== 0) throw new Error(`SIGTERM ended it with ${code ?? signal}, not 0`);
    if (readdirSync(data).length === 0) throw new Error('nothing was written to the data volume');
    console.log(
      `image smoke: healthy with --https, --https-only and --admin-token, /docs served, state in the volume, stopped cleanly by SIGTERM, in ${Math.round((Date.now() - started) / 1000)} s`,
    );
  } finally {
    running?.server.kill('SIGKILL');
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
