import { afterAll, describe } from 'vitest';
import { freshDatabase, PG_SKIP_REASON, testPgUrl } from '../../testing/pgCluster.js';
import { storeConformance } from '../conformance.js';
import { PgStore } from './pgStore.js';

const drops: Array<() => Promise<void>> = [];

describe.skipIf(!testPgUrl)(`PgStore (${testPgUrl ? 'PARTNER_SIM_TEST_PG' : PG_SKIP_REASON})`, () => {
  let url: string | undefined;
  const db = async () => {
    if (!url) {
      const d = await freshDatabase();
      drops.push(d.drop);
      url = d.url;
    }
    return url;
  };
  storeConformance('postgres', {
    open: async () => PgStore.open(await db()),
    openPeer: async () => PgStore.open(await db()),
    blobs: (s) => (s as PgStore).blobStore(),
  });
  afterAll(async () => {
    for (const d of drops) await d();
  });
});
