import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { main } from '../cli.js';
import { spawnTracked } from '../testing/spawnTracked.js';
import { useTestServers } from '../testing/useTestServers.js';
import { DataDirLockedError } from './dataDirLock.js';
import { FileStore } from './fileStore.js';

const servers = useTestServers();

afterEach(() => {
  vi.restoreAllMocks();
});

/** A child process that stays alive until killed, and its pid. */
function sleeper(): { pid: number; stop: () => Promise<void> } {
  const child = spawnTracked(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], { stdio: 'ignore' });
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  return {
    pid: child.pid!,
    stop: async () => {
      child.kill('SIGKILL');
      await exited;
    },
  };
}

describe('one process per data folder', () => {
  it('refuses a second open while the first holds the folder, and allows it after close', async () => {
    const dir = join(await servers.tempDir(), 'state');
    const first = await FileStore.open(dir);
    const second = FileStore.open(dir);
    await expect(second).rejects.toBeInstanceOf(DataDirLockedError);
    await expect(second).rejects.toThrow(`(pid ${process.pid})`);
    expect((await readFile(join(dir, 'LOCK'), 'utf8')).trim()).toBe(String(process.pid));
    await first.close();
    await expect(readFile(join(dir, 'LOCK'), 'utf8')).rejects.toThrow(/ENOENT/);
    await (await FileStore.open(dir)).close();
  });

  it('refuses a lock naming another live process, then takes it over once that process is gone', async () => {
    const dir = join(await servers.tempDir(), 'state');
    await (await FileStore.open(dir)).close();
    const other = sleeper();
    try {
      await writeFile(join(dir, 'LOCK'), `${other.pid}\n`);
      await expect(FileStore.open(dir)).rejects.toThrow(`in use by another partner-sim (pid ${other.pid})`);
    } finally {
      await other.stop();
    }
    // The owner was killed without releasing its lock: the lock is stale now.
    const store = await FileStore.open(dir);
    expect((await readFile(join(dir, 'LOCK'), 'utf8')).trim()).toBe(String(process.pid));
    await store.close();
  });

  it('takes over a lock whose pid is our own but not held by us (a restarted container reuses pids)', async () => {
    const dir = join(await servers.tempDir(), 'state');
    await (await FileStore.open(dir)).close();
    await writeFile(join(dir, 'LOCK'), `${process.pid}\n`);
    await (await FileStore.open(dir)).close();
  });

  it('makes `serve` on a folder in use exit 1 with a message naming the owner, no stack trace', async () => {
    const dir = await servers.tempDir();
    await servers.start({ inMemory: false, dataDir: dir });
    const err: string[] = [];
    vi.spyOn(process.stderr, 'write').mockImplementation((s) => {
      err.push(String(s));
      return true;
    });
    vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
    const code = await main(['serve', '--port', '0', '--data-dir', dir, '--log-level', 'silent']);
    expect(code).toBe(1);
    expect(err.join('')).toMatch(new RegExp(`in use by another partner-sim \\(pid ${process.pid}\\)`));
    expect(err.join('')).not.toMatch(/\n\s+at /);
  });
});
