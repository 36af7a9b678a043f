import { describe, expect, it } from 'vitest';
import { PG_SKIP_REASON, testPgUrl, useTestStore } from '../../testing/pgCluster.js';
import { journalEntry } from '../../testing/storeFixtures.js';

const entry = (status: number) => journalEntry('taskGet', status, 'a');

describe.skipIf(!testPgUrl)(`PgJournal (${testPgUrl ? 'PARTNER_SIM_TEST_PG' : PG_SKIP_REASON})`, () => {
  const db = useTestStore();

  it('trims each ring back to its capacity as it goes, so the table does not grow', async () => {
    const j = db.store.journal(16);
    for (let i = 0; i < 200; i++) await j.add(entry(200 + (i % 50)), i, 'a');
    await expect
      .poll(
        async () => (await db.sql.query("SELECT count(*)::int AS n FROM journal WHERE ring = 'a'")).rows[0].n,
      )
      .toBeLessThanOrEqual(16 + 2);
    const listed = await j.list({ clientId: 'a', limit: 100 });
    expect(listed).toHaveLength(16);
    expect(listed[0]!.status).toBe(200 + (199 % 50));
  });

  it('keeps nothing at capacity 0, yet gives every entry an id', async () => {
    const j = db.store.journal(0);
    await db.store.clear();
    const e = await j.add(entry(200), 0);
    expect(e).toMatch(/^req_\d+$/);
    expect(await j.list()).toEqual([]);
  });
});
