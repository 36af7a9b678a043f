import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { PG_SKIP_REASON, testPgUrl, useTestDatabase } from '../../testing/pgCluster.js';
import { PgStore } from './pgStore.js';

type App = { name: string };

describe.skipIf(!testPgUrl)(
  `PostgreSQL mirrors (${testPgUrl ? 'PARTNER_SIM_TEST_PG' : PG_SKIP_REASON})`,
  () => {
    const db = useTestDatabase();
    let a: PgStore;
    let b: PgStore;
    beforeAll(async () => {
      a = await PgStore.open(db.url, { listen: false });
      b = await PgStore.open(db.url, { listen: false });
    });
    afterAll(async () => {
      await a?.close();
      await b?.close();
    });

    it('loads what is already there when an instance opens', async () => {
      await a.mirrored<App>('apps').put('early', { name: 'early' });
      const c = await PgStore.open(db.url, { listen: false });
      expect(c.mirrored<App>('apps').peek('early')).toEqual({ name: 'early' });
      await c.close();
    });

    it('a sync called while another is in flight still sees writes committed before it was called', async () => {
      for (let i = 0; i < 10; i++) {
        const inFlight = b.sync();
        await a.mirrored<App>('apps').put(`k${i}`, { name: `v${i}` });
        await b.sync();
        expect(b.mirrored<App>('apps').peek(`k${i}`)).toEqual({ name: `v${i}` });
        await inFlight;
      }
    });

    it('reloads the whole collection when the tombstones it needed were pruned', async () => {
      const apps = a.mirrored<App>('apps');
      await apps.put('x', { name: 'x' });
      await apps.put('y', { name: 'y' });
      await b.sync();
      await apps.delete('x');
      await apps.put('y', { name: 'y2' });
      // What pruning does after many deletes, at once.
      await db.sql.query("DELETE FROM tombstones WHERE collection = 'apps'");
      await db.sql.query("UPDATE mirror_versions SET pruned_below = version WHERE collection = 'apps'");
      await b.sync();
      expect(b.mirrored<App>('apps').peek('x')).toBeUndefined();
      expect(b.mirrored<App>('apps').peek('y')).toEqual({ name: 'y2' });
    });

    it('never rolls back a newer local write with an older change from a sync', async () => {
      const apps = b.mirrored<App>('apps');
      await a.mirrored<App>('apps').put('r', { name: 'from a' });
      const sync = b.sync();
      await apps.put('r', { name: 'from b' });
      await sync;
      await b.sync();
      expect(apps.peek('r')).toEqual({ name: 'from b' });
    });

    it('refreshes an idle instance in the background when another writes (LISTEN/NOTIFY)', async () => {
      const listening = await PgStore.open(db.url);
      await a.mirrored<App>('clocks').put('c1', { name: 'pushed' });
      await vi.waitFor(
        () => expect(listening.mirrored<App>('clocks').peek('c1')).toEqual({ name: 'pushed' }),
        {
          timeout: 5000,
        },
      );
      await listening.close();
    });
  },
);
