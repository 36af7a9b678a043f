import { existsSync } from 'node:fs';
import { dirname } from 'node:path';
import { describe, expect, it } from 'vitest';
import { awaitSetupState } from './setupState.js';
import { havePostgresBinaries, startThrowawayCluster } from './throwawayCluster.js';

describe('the throw-away cluster npm test starts without waiting', () => {
  // The cluster that does start is the one every PostgreSQL test of the run uses; one that
  // cannot start must say why to the files waiting for it (pgCluster.ts).
  it.runIf(havePostgresBinaries())(
    'reports why it did not start, and stop() leaves nothing behind',
    async () => {
      const cluster = await startThrowawayCluster(70_000);
      await expect(awaitSetupState(cluster.state, 'the cluster')).rejects.toThrow(
        "the cluster did not start (exit 2: with-postgres: PARTNER_SIM_PG_PORT must be a port number (1-65535), got '70000')",
      );
      await cluster.stop();
      expect(existsSync(dirname(cluster.state))).toBe(false);
    },
  );
});
