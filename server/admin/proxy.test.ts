import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ControlClient } from '../embed/controlClient.js';
import { startTestServer, tempDataDir } from '../testing/testServer.js';

// GET /__admin/proxy: what a client that is not an app (the contract suite) learns from the
// instance itself to reach the hosts it intercepts.
describe('GET /__admin/proxy', () => {
  it('names the intercepted hosts and the CA certificate (never the key) with --https', async () => {
    const tmp = await tempDataDir();
    const sim = await startTestServer({
      https: true,
      caDir: join(tmp.dir, 'ca'),
      storageHost: 'bucket.s3.eu-west-1.amazonaws.com',
      tlsHosts: ['sim.lan.test'],
    });
    try {
      const info = await new ControlClient(sim.admin).proxy();
      expect(info.https).toBe(true);
      expect(info.intercepted_hosts).toEqual(
        expect.arrayContaining([
          'platform-us.plaud.ai',
          'platform-jp.plaud.ai',
          'bucket.s3.eu-west-1.amazonaws.com',
          'sim.lan.test',
        ]),
      );
      // Loopback names are the simulator only on its own port: not a host to send through it.
      expect(info.intercepted_hosts).not.toContain('127.0.0.1');
      expect(info.storage_host).toBe('bucket.s3.eu-west-1.amazonaws.com');
      expect(info.ca_certificate).toBe(await readFile(sim.https!.caCertPath, 'utf8'));
      expect(JSON.stringify(info)).not.toContain('PRIVATE KEY');
      expect(info.ca_page).toBe('/ca');
      expect(info.passthrough).toBe(false);
    } finally {
      await sim.stop();
      await tmp.cleanup();
    }
  }, 30_000);

  it('says there is no proxy and no CA on a plain instance', async () => {
    const sim = await startTestServer();
    try {
      expect(await new ControlClient(sim.admin).proxy()).toEqual({
        https: false,
        intercepted_hosts: [],
        storage_host: null,
        ca_certificate: null,
        ca_page: null,
        passthrough: false,
      });
    } finally {
      await sim.stop();
    }
  });
});
