import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { http } from '../testing/http.js';
import { freshDatabase, PG_SKIP_REASON, testPgUrl } from '../testing/pgCluster.js';
import { scaledBudget } from '../testing/scaledBudget.js';
import { type ServeChild, spawnServe } from '../testing/serveChild.js';
import { sourceEntry } from '../testing/sourceBuild.js';
import { startTestServer } from '../testing/testServer.js';
import { startReceiver } from '../testing/webhookReceiver.js';

// The schedule is state: a restart between attempts loses nothing, and two instances sharing a
// PostgreSQL store send each attempt once, however their housekeeping ticks fall.

const T0 = '2030-01-01T00:00:00.000Z';
/** The instances' housekeeping tick (`--housekeeping-tick`), which sends attempts that fell due. */
const TICK_MS = 200;

async function arrange(admin: string, url: string, clientId: string) {
  expect((await http('POST', `${admin}/apps`, { json: { client_id: clientId } })).status).toBe(201);
  await http('POST', `${admin}/clock`, { json: { client_id: clientId, now: T0, freeze: true } });
  return (await http('POST', `${admin}/apps/${clientId}/webhooks`, { json: { url } })).body as {
    id: string;
    secret: string;
  };
}

const cleanups: Array<() => Promise<unknown>> = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await c();
});

describe('restart between attempts', () => {
  it('the next attempt is sent by the restarted simulator, at its time', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'partner-sim-wh-'));
    cleanups.push(() => rm(dir, { recursive: true, force: true }));
    const rc = await startReceiver({ status: 503 });
    cleanups.push(rc.close);
    let s = await startTestServer({ inMemory: false, dataDir: dir, webhookTimeoutMs: 500 });
    const ep = await arrange(s.admin, rc.url, 'restart-app');
    await http('POST', `${s.admin}/apps/restart-app/webhooks/${ep.id}/test`, { json: {} });
    await s.services.webhooks.tick();
    await s.services.webhooks.idle();
    expect(rc.got).toHaveLength(1);
    await s.stop();

    s = await startTestServer({ inMemory: false, dataDir: dir, webhookTimeoutMs: 500 });
    cleanups.push(() => s.stop());
    rc.behave({ status: 200 });
    await http('POST', `${s.admin}/clock`, { json: { client_id: 'restart-app', advance_ms: 30_000 } });
    await s.services.webhooks.tick();
    await s.services.webhooks.idle();
    expect(rc.got).toHaveLength(2);
    expect(rc.got[1]!.body).toBe(rc.got[0]!.body);
    const [d] = (await http('GET', `${s.admin}/apps/restart-app/webhook-deliveries`)).body;
    expect(d.status).toBe('succeeded');
    expect(d.attempts.map((a: { at: string }) => a.at)).toEqual([T0, '2030-01-01T00:00:30.000Z']);
  });
});

describe.skipIf(!testPgUrl)(
  `two instances on PostgreSQL${testPgUrl ? '' : ` (skipped: ${PG_SKIP_REASON})`}`,
  () => {
    it('each attempt of each delivery is sent once', { timeout: 120_000 }, async () => {
      const entry = await sourceEntry('cli');
      const db = await freshDatabase();
      cleanups.push(db.drop);
      const rc = await startReceiver({ status: 500 });
      cleanups.push(rc.close);
      const launch = async (): Promise<ServeChild> => {
        const dataDir = await mkdtemp(join(tmpdir(), 'partner-sim-wh-pg-'));
        const child = await spawnServe(entry, [
          '--port',
          '0',
          '--store',
          db.url,
          '--data-dir',
          dataDir,
          '--log-level',
          'silent',
          '--webhook-timeout',
          '2s',
          '--housekeeping-tick',
          `${TICK_MS}ms`,
        ]);
        cleanups.push(async () => {
          const gone = new Promise((r) => child.proc.once('exit', r));
          child.proc.kill('SIGTERM');
          await gone;
          await rm(dataDir, { recursive: true, force: true });
        });
        return child;
      };
      const [a, b] = await Promise.all([launch(), launch()]);
      const adminA = `${a!.url}/__admin`;
      const adminB = `${b!.url}/__admin`;
      const ep = await arrange(adminA, rc.url, 'pg-hooks');
      const EVENTS = 20;
      // Half the events made through each instance, so both have work of their own to kick.
      await Promise.all(
        Array.from({ length: EVENTS }, (_, i) =>
          http('POST', `${i % 2 ? adminB : adminA}/apps/pg-hooks/webhooks/${ep.id}/test`, { json: {} }),
        ),
      );
      const counts = () => {
        const m = new Map<string, number>();
        for (const g of rc.got) {
          const id = JSON.parse(g.body).id as string;
          m.set(id, (m.get(id) ?? 0) + 1);
        }
        return m;
      };
      for (const [attempts, advance] of [
        [1, 0],
        [2, 30_000],
        [3, 300_000],
      ] as const) {
        if (advance > 0)
          await http('POST', `${attempts % 2 ? adminA : adminB}/clock`, {
            json: { client_id: 'pg-hooks', advance_ms: advance },
          });
        await rc.waitFor(EVENTS * attempts, scaledBudget(15_000));
        // Both instances tick every TICK_MS: three more ticks for a second copy to show up.
        await new Promise((r) => setTimeout(r, 3 * TICK_MS));
        expect(rc.got).toHaveLength(EVENTS * attempts);
        expect([...counts().values()]).toEqual(Array(EVENTS).fill(attempts));
      }
      const log = (await http('GET', `${adminB}/apps/pg-hooks/webhook-deliveries`)).body;
      expect(log).toHaveLength(EVENTS);
      for (const d of log) expect(d.attempts.map((x: { attempt: number }) => x.attempt)).toEqual([1, 2, 3]);
    });
  },
);
