import { cp, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { SimError } from '../core/errors.js';
import { Random } from '../core/random.js';
import { fromRoot } from '../core/root.js';
import { DeviceRegistry } from '../domain/devices.js';
import { MemoryStore } from '../store/memoryStore.js';
import { tempDataDir } from '../testing/testServer.js';
import { type FixtureFile, readFixture } from './fixtures.js';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

/** A copy of the shipped fixtures with `file` edited (as parsed JSON, or replaced by text). */
async function brokenCopy(file: FixtureFile, edit: ((list: Record<string, unknown>[]) => void) | string) {
  const { dir, cleanup } = await tempDataDir();
  cleanups.push(cleanup);
  await cp(fromRoot('fixtures'), dir, { recursive: true });
  if (typeof edit === 'string') await writeFile(join(dir, file), edit);
  else {
    const list = JSON.parse(await readFile(join(dir, file), 'utf8')) as Record<string, unknown>[];
    edit(list);
    await writeFile(join(dir, file), JSON.stringify(list));
  }
  return dir;
}

/** What loading the devices fixtures throws: schema first, then the registry's own rules. */
const failure = async (dir: string, file: FixtureFile): Promise<SimError> => {
  const load =
    file === 'devices.json'
      ? new DeviceRegistry(new MemoryStore(), new Random('t')).checkFixtures(dir)
      : readFixture(dir, file);
  const err = await load.then(
    () => undefined,
    (e: unknown) => e as SimError,
  );
  expect(err, 'the fixture should have been refused').toBeDefined();
  return err!;
};

describe('fixture validation', () => {
  it('accepts the shipped fixtures', async () => {
    expect((await readFixture<unknown[]>(fromRoot('fixtures'), 'apps.json'))?.length).toBeGreaterThan(0);
    await new DeviceRegistry(new MemoryStore(), new Random('t')).checkFixtures(fromRoot('fixtures'));
  });

  it('refuses "is_bind": "maybe" naming file, entry and field, instead of reading it as false', async () => {
    const dir = await brokenCopy('devices.json', (l) => {
      l[3]!.is_bind = 'maybe';
    });
    const err = await failure(dir, 'devices.json');
    expect(err.status).toBe(422);
    expect(err.message).toMatch(/^fixtures\/devices\.json: \[3\]\.is_bind: .*boolean.*\(got "maybe"\)$/);
    expect(err.issues?.map((i) => i.loc)).toContainEqual(['fixtures', 'devices.json', 3, 'is_bind']);
  });

  it.each<[string, FixtureFile, (l: Record<string, unknown>[]) => void, (string | number)[]]>([
    [
      'a misspelt key',
      'devices.json',
      (l) => {
        l[1]!.bind_histroy = [];
      },
      [1, 'bind_histroy'],
    ],
    [
      'a bad serial',
      'devices.json',
      (l) => {
        l[0]!.sn = '999X';
      },
      [0, 'sn'],
    ],
    [
      'a history entry of the wrong form',
      'devices.json',
      (l) => {
        l[2]!.bind_history = ['bob'];
      },
      [2, 'bind_history', 0],
    ],
    [
      'an owner of an unbound device (a rule, not a schema)',
      'devices.json',
      (l) => {
        l[2]!.owner = { sub: 'client_user_x', client_id: 'a' };
      },
      [2, 'owner'],
    ],
    [
      'a type against its serial prefix',
      'devices.json',
      (l) => {
        l[0]!.type = 'notepins';
      },
      [0, 'type'],
    ],
    [
      'an unknown region',
      'apps.json',
      (l) => {
        l[1]!.region = 'cn';
      },
      [1, 'region'],
    ],
    [
      'an app without client_id',
      'apps.json',
      (l) => {
        delete l[0]!.client_id;
      },
      [0, 'client_id'],
    ],
    [
      'a short secret',
      'apps.json',
      (l) => {
        l[2]!.secret_key = 'x';
      },
      [2, 'secret_key'],
    ],
  ])('refuses %s', async (_what, file, edit, at) => {
    const err = await failure(await brokenCopy(file, edit), file);
    expect(err.status).toBe(422);
    expect(err.issues?.map((i) => i.loc)).toContainEqual(['fixtures', file, ...at]);
    expect(err.message.startsWith(`fixtures/${file}: `)).toBe(true);
    expect(err.message).not.toContain('\n');
  });

  it('refuses a file that is not JSON or not a list, without naming server paths', async () => {
    const notJson = await failure(await brokenCopy('apps.json', '[{"client_id": '), 'apps.json');
    expect(notJson.issues?.[0]).toMatchObject({ loc: ['fixtures', 'apps.json'], type: 'json_invalid' });
    const notList = await failure(
      await brokenCopy('devices.json', '{"sn": "8810B30227290001"}'),
      'devices.json',
    );
    expect(notList.issues?.[0]?.loc).toEqual(['fixtures', 'devices.json']);
    for (const e of [notJson, notList]) expect(e.message).not.toMatch(/\/tmp|partner-sim-/);
  });

  it('treats a missing file as no fixtures', async () => {
    const { dir, cleanup } = await tempDataDir();
    cleanups.push(cleanup);
    expect(await readFixture(dir, 'apps.json')).toBeUndefined();
  });
});
