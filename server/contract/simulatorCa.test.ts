import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startTestServer, tempDataDir } from '../testing/testServer.js';
import { loopbackSimulatorCa, trusting } from './simulatorCa.js';

// An https simulator on this machine is trusted from its own /ca page; nothing else is.
describe('loopbackSimulatorCa', () => {
  it('reads the CA of an https simulator on loopback from its /ca page', async () => {
    const tmp = await tempDataDir();
    const sim = await startTestServer({ https: true, httpsOnly: true, caDir: join(tmp.dir, 'ca') });
    try {
      const pem = await readFile(sim.https!.caCertPath, 'utf8');
      expect(await loopbackSimulatorCa(sim.https!.url, 5000)).toBe(pem);
      const localhost = sim.https!.url.replace('127.0.0.1', 'localhost');
      expect(await loopbackSimulatorCa(localhost, 5000)).toBe(pem);
      // A plain base URL needs no CA.
      expect(await loopbackSimulatorCa(sim.url, 5000)).toBeUndefined();
    } finally {
      await sim.stop();
      await tmp.cleanup();
    }
  }, 30_000);

  it('never trusts what a host across a network hands out over plain HTTP (nothing is even asked)', async () => {
    const asked: string[] = [];
    const real = globalThis.fetch;
    globalThis.fetch = ((url: string) => {
      asked.push(String(url));
      return real(url);
    }) as typeof fetch;
    try {
      expect(await loopbackSimulatorCa('https://sim.example.test:4010', 100)).toBeUndefined();
      expect(await loopbackSimulatorCa('https://192.0.2.10:4010', 100)).toBeUndefined();
    } finally {
      globalThis.fetch = real;
    }
    expect(asked).toEqual([]);
  });
});

describe('trusting', () => {
  it("keeps the certificates the user's NODE_EXTRA_CA_CERTS already names, and removes its file after", async () => {
    const tmp = await tempDataDir();
    try {
      const mine = join(tmp.dir, 'mine.pem');
      await writeFile(mine, 'MINE\n');
      const t = await trusting({ NODE_EXTRA_CA_CERTS: mine, OTHER: 'x' }, 'SIM\n');
      expect(t.env.OTHER).toBe('x');
      expect(await readFile(t.env.NODE_EXTRA_CA_CERTS!, 'utf8')).toBe('MINE\nSIM\n');
      await t.cleanup();
      await expect(readFile(t.env.NODE_EXTRA_CA_CERTS!, 'utf8')).rejects.toThrow(/ENOENT/);
      const alone = await trusting({}, 'SIM\n');
      expect(await readFile(alone.env.NODE_EXTRA_CA_CERTS!, 'utf8')).toBe('SIM\n');
      await alone.cleanup();
    } finally {
      await tmp.cleanup();
    }
  });
});
