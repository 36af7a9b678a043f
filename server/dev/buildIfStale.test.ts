import { readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, unlink, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { BUILD_STAMPS } from './buildAssets.mjs';
import { buildIfStale, projectRoot, staleReason } from './buildIfStale.mjs';

let root: string;
const OLD = new Date('2026-01-01T00:00:00Z');
const BUILT = new Date('2026-01-02T00:00:00Z');
const LATER = new Date('2026-01-03T00:00:00Z');

async function put(rel: string, when: Date): Promise<void> {
  const path = join(root, rel);
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, rel);
  await utimes(path, when, when);
}

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'partner-sim-stale-'));
  for (const f of ['server/app.ts', 'server/core/clock.ts', 'openapi.yaml', 'server/admin.openapi.yaml'])
    await put(f, OLD);
  for (const d of ['server/core', 'server']) await utimes(join(root, d), OLD, OLD);
  for (const s of BUILD_STAMPS) await put(s, BUILT);
});
afterEach(() => rm(root, { recursive: true, force: true }));

describe('staleReason (npm start builds only when needed)', () => {
  it('is up to date when every input is older than the build', () => {
    expect(staleReason(root)).toBeUndefined();
  });

  it('asks for a build when there is none', async () => {
    await rm(join(root, 'dist'), { recursive: true });
    expect(staleReason(root)).toMatch(/no complete build/);
  });

  it('names a changed TypeScript file', async () => {
    await put('server/core/clock.ts', LATER);
    expect(staleReason(root)).toBe('server/core/clock.ts changed since the last build');
  });

  it('names a changed document', async () => {
    await put('server/admin.openapi.yaml', LATER);
    expect(staleReason(root)).toMatch(/admin\.openapi\.yaml changed/);
  });

  it('notices a deleted source through its folder', async () => {
    await unlink(join(root, 'server/core/clock.ts'));
    expect(staleReason(root)).toMatch(/server\/core changed/);
  });

  it('names a changed contract scenario, which is built and shipped', async () => {
    await put('contracts/upload.test.ts', OLD);
    await utimes(join(root, 'contracts'), OLD, OLD);
    expect(staleReason(root)).toBeUndefined();
    await put('contracts/upload.test.ts', LATER);
    await utimes(join(root, 'contracts'), OLD, OLD);
    expect(staleReason(root)).toBe('contracts/upload.test.ts changed since the last build');
  });

  it('ignores a changed test, which is not built', async () => {
    await put('server/core/clock.test.ts', LATER);
    await utimes(join(root, 'server/core'), OLD, OLD);
    expect(staleReason(root)).toBeUndefined();
  });
});

describe('prepare (a git install builds the clone; a fresh clone does nothing)', () => {
  const stderr = () => {
    const lines: string[] = [];
    vi.spyOn(process.stderr, 'write').mockImplementation((s) => {
      lines.push(String(s));
      return true;
    });
    return lines;
  };
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('is the full build, only when dist/ is stale', () => {
    const pkg = JSON.parse(readFileSync(join(projectRoot, 'package.json'), 'utf8'));
    expect(pkg.scripts.prepare).toBe('node server/dev/buildIfStale.mjs --full');
  });

  it('does nothing on an up-to-date dist/', async () => {
    const lines = stderr();
    expect(await buildIfStale(root, { full: true })).toBe(0);
    expect(lines.join('')).toContain('dist/ is up to date');
  });

  it('runs tsc (declarations for a TypeScript consumer), not the quick transpile, when stale', async () => {
    await put('server/core/clock.ts', LATER);
    const lines = stderr();
    // This root has no TypeScript installed: the failure shows which build was tried.
    expect(await buildIfStale(root, { full: true })).not.toBe(0);
    expect(lines.join('')).toContain('the build failed (tsc)');
  });
});
