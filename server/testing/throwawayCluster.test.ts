import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { havePostgresBinaries, startThrowawayCluster } from './throwawayCluster.js';

async function settled(state: string): Promise<string> {
  for (let i = 0; i < 600; i++) {
    const text = await readFile(state, 'utf8').catch(() => '');
    if (text) return text;
    await sleep(50);
  }
  return 'never settled';
}

describe('the throw-away cluster npm test starts without waiting', () => {
  // The cluster that does start is the one every PostgreSQL test of the run uses; one that
  // cannot start must say why to the files waiting for it (pgCluster.ts).
  it.runIf(havePostgresBinaries())(
    'reports why it did not start, and stop() leaves nothing behind',
    async () => {
      const cluster = await startThrowawayCluster(70_000);
      expect(await settled(cluster.state)).toBe(
        "failed: exit 2: with-postgres: PARTNER_SIM_PG_PORT must be a port number (1-65535), got '70000'",
      );
      await cluster.stop();
      expect(existsSync(dirname(cluster.state))).toBe(false);
    },
  );
});
