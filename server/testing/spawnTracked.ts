import { type ChildProcess, type SpawnOptions, spawn } from 'node:child_process';
import { trackGroup } from './childGroups.js';

/**
 * `spawn` for tests: the child leads a process group of its own and is registered until it
 * exits, so no test, timed out or interrupted, leaves it (or what it started) running after
 * the run (childGroups.ts). Every child process a test starts goes through here.
 */
export function spawnTracked(
  command: string,
  args: readonly string[],
  options: SpawnOptions = {},
): ChildProcess {
  const child = spawn(command, args, { ...options, detached: true });
  trackGroup(child);
  return child;
}

/** What `execFileTracked` rejects with: as `promisify(execFile)`'s error, code and output. */
export interface ExecFileError extends Error {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/**
 * `promisify(execFile)` through `spawnTracked`: resolves with the output of a zero exit,
 * rejects with the exit code (or signal) and the output otherwise; after `timeout` ms the
 * child's group gets SIGTERM, as execFile's child does.
 */
export function execFileTracked(
  file: string,
  args: readonly string[],
  { timeout, ...options }: { cwd?: string; env?: NodeJS.ProcessEnv; timeout?: number } = {},
): Promise<{ stdout: string; stderr: string }> {
  const child = spawnTracked(file, args, { ...options, stdio: ['ignore', 'pipe', 'pipe'] });
  const timer =
    timeout === undefined
      ? undefined
      : setTimeout(() => {
          try {
            process.kill(-child.pid!, 'SIGTERM');
          } catch {}
        }, timeout);
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (d: string) => {
    stdout += d;
  });
  child.stderr!.setEncoding('utf8').on('data', (d: string) => {
    stderr += d;
  });
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      if (code === 0) return resolve({ stdout, stderr });
      const e = new Error(
        `Command failed: ${[file, ...args].join(' ')} (${signal ?? `exit ${code}`})\n${stderr}`,
      ) as ExecFileError;
      Object.assign(e, { code, signal, stdout, stderr });
      reject(e);
    });
  });
}
