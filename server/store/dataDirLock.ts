import { link, readFile, rm, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/** Why a data folder could not be taken: another live process owns it. */
export class DataDirLockedError extends Error {
  readonly code = 'EDATADIRLOCKED';
  constructor(
    readonly dir: string,
    readonly ownerPid: number | undefined,
  ) {
    super(
      `${dir} is in use by another partner-sim (pid ${ownerPid ?? 'unknown'}); ` +
        'stop that process or pick another --data-dir',
    );
  }
}

/** Lock files this process holds: a second open in the same process is refused too. */
const held = new Set<string>();

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    // EPERM: the process exists but belongs to someone else.
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

async function ownerOf(lock: string): Promise<number | undefined> {
  try {
    const pid = Number((await readFile(lock, 'utf8')).trim());
    return Number.isSafeInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

/**
 * One process per data folder: two writers would interleave records and sweep each other's
 * blobs. The lock file `<dir>/LOCK` holds the owner's pid; it is created complete and
 * exclusively (written under a temporary name, then hard-linked, which fails if it exists).
 * A lock whose pid is no longer running (the owner was killed) is taken over. The same pid
 * as ours but not held by us is a restarted container reusing the pid: stale too.
 */
export async function lockDataDir(dir: string): Promise<() => Promise<void>> {
  const lock = join(dir, 'LOCK');
  const temp = join(dir, `LOCK.${process.pid}.${Date.now()}`);
  await writeFile(temp, `${process.pid}\n`);
  try {
    for (let attempt = 0; ; attempt++) {
      try {
        await link(temp, lock);
        break;
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      }
      const owner = await ownerOf(lock);
      const live = owner !== undefined && (owner === process.pid ? held.has(lock) : alive(owner));
      if (live || attempt >= 2) throw new DataDirLockedError(dir, owner);
      await rm(lock, { force: true });
    }
  } finally {
    await unlink(temp).catch(() => {});
  }
  held.add(lock);
  return async () => {
    held.delete(lock);
    if ((await ownerOf(lock)) === process.pid) await rm(lock, { force: true });
  };
}
