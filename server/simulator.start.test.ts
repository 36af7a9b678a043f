import { randomBytes } from 'node:crypto';
import { access, mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { uploadAll } from './client/upload.js';
import { testConfig } from './config.js';
import { serveSimulator } from './simulator.js';
import { DEMO_US, userToken } from './testing/http.js';

describe('serveSimulator on a busy port', () => {
  let blocker: Server | undefined;
  let dir: string | undefined;
  afterEach(async () => {
    await new Promise<void>((r) => (blocker ? blocker.close(() => r()) : r()));
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('fails with EADDRINUSE and leaves no data folder (no LOCK) behind', async () => {
    blocker = createServer();
    await new Promise<void>((r) => blocker!.listen(0, '127.0.0.1', () => r()));
    const { port } = blocker.address() as AddressInfo;
    dir = await mkdtemp(join(tmpdir(), 'psim-busy-'));
    const dataDir = join(dir, 'data');
    await expect(
      serveSimulator(testConfig({ inMemory: false, dataDir, port, host: '127.0.0.1' })),
    ).rejects.toMatchObject({ code: 'EADDRINUSE' });
    await expect(access(dataDir)).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('with --https too: no data folder and no CA created on a busy port', async () => {
    blocker = createServer();
    await new Promise<void>((r) => blocker!.listen(0, '127.0.0.1', () => r()));
    const { port } = blocker.address() as AddressInfo;
    dir = await mkdtemp(join(tmpdir(), 'psim-busy-tls-'));
    const dataDir = join(dir, 'data');
    await expect(
      serveSimulator(testConfig({ inMemory: false, dataDir, port, host: '127.0.0.1', https: true })),
    ).rejects.toMatchObject({ code: 'EADDRINUSE' });
    await expect(access(dataDir)).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('on a free port creates the data folder and serves', async () => {
    dir = await mkdtemp(join(tmpdir(), 'psim-free-'));
    const dataDir = join(dir, 'data');
    const sim = await serveSimulator(testConfig({ inMemory: false, dataDir, host: '127.0.0.1' }));
    try {
      await access(join(dataDir, 'state', 'LOCK'));
      expect((await fetch(`${sim.url}/__admin/health`)).status).toBeLessThan(500);
    } finally {
      await sim.stop();
    }
  });
});

describe('stop()', () => {
  it('closes a keep-alive connection whose download was still ending as soon as it is idle, not at the 2 s cap', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'psim-stop-'));
    // Blobs on disk: a download is a file stream.
    const sim = await serveSimulator(testConfig({ inMemory: false, dataDir, chunkSize: 1024 }));
    const { user } = await userToken(`${sim.url}/developer/api`, DEMO_US);
    const file = await uploadAll(`${sim.url}/developer/api`, user, 2000, (_n, len) => randomBytes(len));
    // Its last byte is here; the server ends its file stream a moment later.
    expect((await (await fetch(file.DownloadUrl)).arrayBuffer()).byteLength).toBe(2000);
    const forced = vi.spyOn(sim.server, 'closeAllConnections');
    await sim.stop();
    await rm(dataDir, { recursive: true, force: true });
    expect(forced).not.toHaveBeenCalled();
  });
});
