import { availableParallelism } from 'node:os';
import { cpuUs } from './lib.js';

/**
 * CPU accounting for throughput targets measured against a single-thread speed: what each side
 * of a run spent, and the fastest rate the machine's cores allow for a given amount of work.
 */

const GiB = 1024 * 1024 * 1024;
/** The cores client and server share (the bench runs both on this machine). */
export const CORES = availableParallelism();

/** Core-seconds per GiB spent from now on by this process (the client) and by `pid` (a server). */
export function cpuMeter(pid: number | undefined, size: number): () => { client: number; server: number } {
  const c0 = process.cpuUsage();
  const s0 = pid === undefined ? 0 : cpuUs(pid);
  return () => {
    const c = process.cpuUsage(c0);
    const perGiB = (us: number) => us / 1e6 / (size / GiB);
    return {
      client: perGiB(c.user + c.system),
      server: pid === undefined ? Number.NaN : perGiB(cpuUs(pid) - s0),
    };
  };
}

/**
 * Whether two cores can hold `ratio` × MD5 speed at all: every byte is hashed twice (its
 * part's ETag, and the whole file's MD5 that complete-upload answers), on top of what the bare
 * server and its client spend moving it. The fastest rate those costs allow, in MiB/s.
 */
export function cpuCeiling(bare: { client: number; server: number }, md5Rate: number): number {
  const md5PerGiB = 1024 / md5Rate;
  const perGiB = bare.client + bare.server + 2 * md5PerGiB;
  return (CORES * 1024) / perGiB;
}
