import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type Supervised, supervise } from './dev.mjs';

let dir: string;
let running: Supervised | undefined;
afterEach(async () => {
  await running?.stop();
  running = undefined;
  await rm(dir, { recursive: true, force: true });
});

const alive = (pid: number | undefined) => {
  try {
    process.kill(pid!, 0);
    return true;
  } catch {
    return false;
  }
};

async function until(check: () => boolean, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('supervise (npm run dev)', () => {
  it('restarts the process when a watched file or folder changes, stopping the old one first', async () => {
    dir = await mkdtemp(join(tmpdir(), 'partner-sim-dev-'));
    const file = join(dir, 'openapi.yaml');
    const folder = join(dir, 'dist');
    await writeFile(file, 'a: 1\n');
    await mkdir(folder);
    const logs: string[] = [];
    running = supervise({
      command: process.execPath,
      args: ['-e', 'setInterval(() => {}, 1000)'],
      paths: [folder, file],
      debounceMs: 50,
      log: (m) => logs.push(m),
    });
    const first = running.pid;
    expect(alive(first)).toBe(true);

    await writeFile(file, 'a: 2\n');
    await until(() => running!.pid !== first && alive(running!.pid));
    expect(alive(first)).toBe(false);
    expect(logs.join('')).toContain('openapi.yaml changed, restarting');

    const second = running.pid;
    await writeFile(join(folder, 'cli.js'), '// rebuilt\n');
    await until(() => running!.pid !== second && alive(running!.pid));
    expect(alive(second)).toBe(false);

    const last = running.pid;
    await running.stop();
    running = undefined;
    expect(alive(last)).toBe(false);
  });

  it('does not watch before it is ready (the first compiler pass rewrites dist/)', async () => {
    dir = await mkdtemp(join(tmpdir(), 'partner-sim-dev-'));
    let ready!: () => void;
    running = supervise({
      command: process.execPath,
      args: ['-e', 'setInterval(() => {}, 1000)'],
      paths: [dir],
      ready: new Promise<void>((r) => {
        ready = r;
      }),
      debounceMs: 20,
      log: () => {},
    });
    const first = running.pid;
    await writeFile(join(dir, 'early.js'), '1');
    await new Promise((r) => setTimeout(r, 300));
    expect(running.pid).toBe(first);
    ready();
    await new Promise((r) => setTimeout(r, 50));
    await writeFile(join(dir, 'late.js'), '2');
    await until(() => running!.pid !== first);
  });
});
