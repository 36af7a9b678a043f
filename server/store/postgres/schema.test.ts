import { describe, expect, it } from 'vitest';
import { PG_SKIP_REASON, testPgUrl, useTestDatabase } from '../../testing/pgCluster.js';
import { COLLECTIONS } from '../collections.js';
import { PgStore } from './pgStore.js';
import { StoreOpenError } from './pool.js';
import { fieldExpr, SCHEMA_VERSION } from './schema.js';

describe.skipIf(!testPgUrl)(
  `PostgreSQL schema (${testPgUrl ? 'PARTNER_SIM_TEST_PG' : PG_SKIP_REASON})`,
  () => {
    const db = useTestDatabase();

    it('is created once when many instances start together, and opening again changes nothing', async () => {
      const stores = await Promise.all(
        Array.from({ length: 6 }, () => PgStore.open(db.url, { listen: false })),
      );
      await Promise.all(stores.map((s) => s.close()));
      const again = await PgStore.open(db.url, { listen: false });
      await again.close();
      const v = await db.sql.query('SELECT version FROM schema_version');
      expect(v.rows).toEqual([{ version: SCHEMA_VERSION }]);
      const mirrored = Object.entries(COLLECTIONS)
        .filter(([, s]) => s.mirrored)
        .map(([n]) => n)
        .sort();
      const m = await db.sql.query('SELECT collection FROM mirror_versions ORDER BY collection');
      expect(m.rows.map((r) => r.collection)).toEqual(mirrored);
    });

    it('answers an indexed look-up from its expression index, even with a generic (prepared) plan', async () => {
      await db.sql.query('SET enable_seqscan = off');
      await db.sql.query('SET plan_cache_mode = force_generic_plan');
      for (const [name, spec] of Object.entries(COLLECTIONS))
        for (const field of spec.indexes) {
          // The statement PgCollection.findBy prepares.
          await db.sql.query(
            `PREPARE q AS SELECT data FROM records WHERE collection = '${name}' AND ${fieldExpr(field)} = $1 ORDER BY id`,
          );
          const plan = await db.sql.query("EXPLAIN EXECUTE q('x')");
          await db.sql.query('DEALLOCATE q');
          const text = plan.rows.map((r) => r['QUERY PLAN']).join('\n');
          expect(text, `${name}.${field}`).toContain(`rx_${name.toLowerCase()}_${field.replace('.', '__')}`);
        }
    });

    it('refuses a database migrated by a newer partner-sim, in one line', async () => {
      await db.sql.query('UPDATE schema_version SET version = $1', [SCHEMA_VERSION + 1]);
      await expect(PgStore.open(db.url, { listen: false })).rejects.toThrow(
        /newer than this partner-sim knows/,
      );
      await db.sql.query('UPDATE schema_version SET version = $1', [SCHEMA_VERSION]);
    });

    it('names a database it cannot use without its password', async () => {
      const u = new URL(db.url);
      u.pathname = '/no_such_db';
      u.password = 'hunter2';
      const err = await PgStore.open(u.toString()).catch((e: Error) => e);
      expect(err).toBeInstanceOf(StoreOpenError);
      expect((err as Error).message).toMatch(/cannot use PostgreSQL at .*no_such_db/);
      expect((err as Error).message).not.toContain('hunter2');
    });
  },
);
