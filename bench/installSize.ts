import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { fromRoot } from '../server/core/root.js';
import type { Benchmark } from './lib.js';

const run = promisify(execFile);

/** Where Prism is installed for its size: outside the project, kept between runs. */
const PRISM_HOME = join(tmpdir(), 'partner-sim-bench-prism-size');
const PRISM = '@stoplight/prism-cli@5';
const LIMIT_MB = 40;

/** `du -sk` of a folder's node_modules, and how many packages npm lists there. */
async function measure(dir: string): Promise<{ mb: number; packages: number }> {
  const { stdout } = await run('du', ['-sk', join(dir, 'node_modules')]);
  const listed = await run('npm', ['ls', '--all', '--parseable'], { cwd: dir, maxBuffer: 1 << 24 }).catch(
    (e: { stdout?: string }) => ({ stdout: e.stdout ?? '' }),
  );
  const packages = listed.stdout.split('\n').filter(Boolean).length - 1;
  return { mb: Number(stdout.split('\t')[0]) / 1024, packages };
}

async function emptyProject(dir: string): Promise<void> {
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, 'package.json'), '{"name":"install-size","private":true}\n');
}

const npmInstall = (dir: string, what: string) =>
  run('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', '--loglevel=error', what], {
    cwd: dir,
    timeout: 300_000,
  });

/** Prism's install, made once from the npm registry; undefined with the reason when it cannot be. */
async function prismSize(): Promise<{ mb: number; packages: number } | { error: string }> {
  try {
    if (!existsSync(join(PRISM_HOME, 'node_modules', '@stoplight', 'prism-cli'))) {
      await rm(PRISM_HOME, { recursive: true, force: true });
      await emptyProject(PRISM_HOME);
      await npmInstall(PRISM_HOME, PRISM);
    }
    return await measure(PRISM_HOME);
  } catch (e) {
    await rm(PRISM_HOME, { recursive: true, force: true });
    return {
      error: ((e as { stderr?: string }).stderr || (e as Error).message).trim().split('\n').pop() ?? '',
    };
  }
}

/**
 * What a new user downloads: the packed package (built by `npm run bench`) installed with npm
 * into an empty folder, `du -sk node_modules`, beside Prism's CLI installed the same way from
 * the registry (into a kept temporary folder; said so when it cannot be installed).
 */
export const installSizeBenchmark: Benchmark = {
  name: 'install size',
  target: `the packed package installed into an empty folder: <= ${LIMIT_MB} MB of node_modules; Prism's beside it`,
  async run() {
    const work = await mkdtemp(join(tmpdir(), 'partner-sim-install-size-'));
    try {
      const { stdout } = await run(
        'npm',
        ['pack', '--ignore-scripts', '--silent', '--pack-destination', work],
        {
          cwd: fromRoot(),
        },
      );
      const tarball = join(work, stdout.trim().split('\n').pop()!);
      const app = join(work, 'app');
      await emptyProject(app);
      await npmInstall(app, tarball);
      const ours = await measure(app);
      const prism = await prismSize();
      const lines = [
        `${'partner-sim (packed, npm i <tgz>):'.padEnd(36)}${ours.mb.toFixed(1)} MB, ${ours.packages} packages (target <= ${LIMIT_MB} MB)`,
        'error' in prism
          ? `Prism (${PRISM}): could not be installed from the npm registry: ${prism.error}`
          : `${`Prism (${PRISM}):`.padEnd(36)}${prism.mb.toFixed(1)} MB, ${prism.packages} packages (partner-sim is ${(ours.mb / prism.mb).toFixed(2)}x)`,
      ];
      return { lines, ok: ours.mb <= LIMIT_MB };
    } finally {
      await rm(work, { recursive: true, force: true });
    }
  },
};
