#!/usr/bin/env node
// `npm run dev [-- <serve options>]`: the simulator restarts on every change. The compiler
// runs in watch mode (tsc --watch, writing dist/ as npm run build does); the server is
// restarted when dist/, the two documents or fixtures/ change. The built code is what runs,
// so dev behaves exactly like `npm start`, only restarted.
import { spawn } from 'node:child_process';
import { statSync, watch } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, dirname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { buildIfStale, projectRoot } from './buildIfStale.mjs';

/**
 * Run `command` and run it again whenever something under `paths` changes (changes closer
 * than `debounceMs` make one restart). The old process is stopped with SIGTERM and awaited
 * before the new one starts: it flushes its state and releases the data folder's lock.
 * Watching begins once `ready` resolves (after the compiler's first pass, which rewrites
 * every file of dist/ without changing any).
 */
export function supervise({
  command,
  args,
  paths,
  ready = Promise.resolve(),
  debounceMs = 300,
  log = (m) => process.stderr.write(m),
}) {
  let child;
  let timer;
  let stopping = false;
  const start = () => {
    child = spawn(command, args, { stdio: 'inherit' });
    const mine = child;
    mine.exited = new Promise((r) => mine.once('exit', r));
  };
  // One restart at a time: a change during a restart queues exactly one more, so two servers
  // never race for the port and the data-folder lock.
  let restarting;
  let queued;
  const restart = async (why) => {
    if (stopping) return;
    if (restarting) {
      queued = why;
      return;
    }
    log(`partner-sim dev: ${why} changed, restarting\n`);
    restarting = (async () => {
      const old = child;
      old.kill('SIGTERM');
      await old.exited;
      if (!stopping) start();
    })();
    await restarting;
    restarting = undefined;
    if (queued !== undefined) {
      const next = queued;
      queued = undefined;
      await restart(next);
    }
  };
  const changed = (what) => {
    clearTimeout(timer);
    timer = setTimeout(() => restart(what), debounceMs);
  };
  // A folder is watched with all it holds; a file through its folder, since editors often
  // save by replacing the file, which a watch on the file itself would lose.
  const watchers = [];
  ready.then(() => {
    if (stopping) return;
    for (const p of paths)
      watchers.push(
        statSync(p).isDirectory()
          ? watch(p, { recursive: true }, (_e, name) => changed(name ? join(p, String(name)) : p))
          : watch(dirname(p), (_e, name) => {
              if (String(name) === basename(p)) changed(p);
            }),
      );
  });
  start();
  return {
    get pid() {
      return child.pid;
    },
    async stop() {
      stopping = true;
      clearTimeout(timer);
      for (const w of watchers) w.close();
      child.kill('SIGTERM');
      await child.exited;
    },
  };
}

async function main() {
  const root = projectRoot;
  const status = await buildIfStale(root);
  if (status !== 0) return status;
  // dist/ is up to date: serve at once. The compiler's first pass rewrites all of dist/, so
  // watching starts when it reports that it is done.
  let compiled;
  const ready = new Promise((r) => {
    compiled = r;
  });
  const tsc = spawn(
    process.execPath,
    [
      createRequire(import.meta.url).resolve('typescript/bin/tsc'),
      '-p',
      join(root, 'tsconfig.build.json'),
      '--watch',
      '--preserveWatchOutput',
    ],
    { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] },
  );
  tsc.stdout.setEncoding('utf8');
  tsc.stdout.on('data', (text) => {
    process.stdout.write(text);
    if (/Watching for file changes/.test(text)) compiled();
  });
  const server = supervise({
    command: process.execPath,
    args: [join(root, 'dist', 'server', 'cli.js'), 'serve', ...process.argv.slice(2)],
    paths: [
      join(root, 'dist'),
      join(root, 'openapi.yaml'),
      join(root, 'server', 'admin.openapi.yaml'),
      join(root, 'fixtures'),
    ],
    ready,
  });
  const shutdown = async () => {
    tsc.kill('SIGTERM');
    await server.stop();
    process.exit(0);
  };
  process.once('SIGINT', shutdown);
  process.once('SIGTERM', shutdown);
  return undefined;
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  const status = await main();
  if (status !== undefined) process.exitCode = status;
}
