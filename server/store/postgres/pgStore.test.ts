import { describe } from 'vitest';
import { PG_SKIP_REASON, testPgUrl, useTestDatabase } from '../../testing/pgCluster.js';
import { storeConformance } from '../../testing/storeContract.js';
import { PgStore } from './pgStore.js';

describe.skipIf(!testPgUrl)(`PgStore (${testPgUrl ? 'PARTNER_SIM_TEST_PG' : PG_SKIP_REASON})`, () => {
  const db = useTestDatabase();
  storeConformance('postgres', {
    open: () => PgStore.open(db.url),
    openPeer: () => PgStore.open(db.url),
    blobs: (s) => (s as PgStore).blobStore(),
  });
});
