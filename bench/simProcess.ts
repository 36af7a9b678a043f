import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSimulator } from './lib.js';

/** A simulator a benchmark talks to, and how to read its resident memory. */
export interface SimHandle {
  url: string;
  /** Resident set size of the simulator process, bytes. */
  rssBytes(): Promise<number>;
  /** Its process id, when it is a child process (CPU time is read from /proc). */
  pid?: number;
  stop(): Promise<void>;
  /** Its `--data-dir`, when its bytes are on disk (the download baseline reads them). */
  dataDir?: string;
}

/** VmRSS of a process from /proc (Linux). */
export async function procRss(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const kb = /VmRSS:\s+(\d+)\s+kB/.exec(status)?.[1];
  if (!kb) throw new Error(`no VmRSS for pid ${pid}`);
  return Number(kb) * 1024;
}

/** The kernel's split of a process's resident memory: anonymous (heaps), file-backed, shared. */
export async function procRssSplit(pid: number): Promise<Record<string, number>> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const out: Record<string, number> = {};
  for (const m of status.matchAll(/^(RssAnon|RssFile|RssShmem|VmData|Threads):\s+(\d+)/gm)) {
    out[m[1]!] = Number(m[2]) * (m[1] === 'Threads' ? 1 : 1024);
  }
  return out;
}

/**
 * The built simulator as a child process with its bytes on disk (a temporary `--data-dir`,
 * as in production), RSS read from /proc/<pid>/status.
 */
export async function startDiskSim(extraArgs: string[] = []): Promise<SimHandle> {
  const dataDir = await mkdtemp(join(tmpdir(), 'partner-sim-bench-'));
  const sim = await spawnSimulator(['--data-dir', dataDir, ...extraArgs]);
  return {
    url: sim.url,
    dataDir,
    pid: sim.child.pid!,
    rssBytes: () => procRss(sim.child.pid!),
    async stop() {
      await sim.stop();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}
