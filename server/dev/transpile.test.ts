import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { transpileSources } from './transpile.mjs';

let root: string;
const put = async (rel: string, text: string) => {
  await mkdir(dirname(join(root, rel)), { recursive: true });
  await writeFile(join(root, rel), text);
};
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'partner-sim-transpile-'));
});
afterEach(() => rm(root, { recursive: true, force: true }));

describe("npm start's and npm test's build of the sources (no type check)", () => {
  it('writes what tsconfig.build.json compiles, as runnable modules, and nothing else', async () => {
    await put(
      'server/core/add.ts',
      'export type N = number;\nexport const add = (a: N, b: N): N => a + b;\n',
    );
    await put(
      'server/app.ts',
      "import type { N } from './core/add.js';\nimport { add } from './core/add.js';\n" +
        'export class Counter { total: N = add(1, 2); static readonly step = 1; }\n',
    );
    await put('server/app.test.ts', 'throw new Error("a unit test is not built");\n');
    await put('server/types.d.ts', 'declare const x: number;\n');
    await put('contracts/tokens.test.ts', 'export const scenario: string = "shipped";\n');
    await put('bench/run.ts', 'export const bench = 1 as const;\n');
    expect(await transpileSources(root)).toBe(4);
    for (const f of ['server/core/add.js', 'server/app.js', 'contracts/tokens.test.js', 'bench/run.js'])
      expect(existsSync(join(root, 'dist', f)), f).toBe(true);
    expect(existsSync(join(root, 'dist', 'server', 'app.test.js'))).toBe(false);
    expect(existsSync(join(root, 'dist', 'server', 'types.js'))).toBe(false);
    // Types gone, imports kept as written (a type-only import removed), and it runs.
    const app = await readFile(join(root, 'dist', 'server', 'app.js'), 'utf8');
    expect(app).not.toMatch(/import type|: N/);
    const { Counter } = await import(pathToFileURL(join(root, 'dist', 'server', 'app.js')).href);
    expect(new Counter().total).toBe(3);
  });

  it('fails on a syntax error instead of writing a broken build', async () => {
    await put('server/broken.ts', 'export const = 1;\n');
    await expect(transpileSources(root)).rejects.toThrow(/broken\.ts/);
  });
});
