import { afterEach, describe, expect, it } from 'vitest';
import { tempDataDir } from '../testing/testServer.js';
import { type SimulatorHandle, startSimulator } from './startSimulator.js';

const running: SimulatorHandle[] = [];
const start = async (...args: Parameters<typeof startSimulator>) => {
  const sim = await startSimulator(...args);
  running.push(sim);
  return sim;
};
afterEach(async () => {
  await Promise.all(running.splice(0).map((s) => s.stop()));
});

describe('startSimulator (package entry)', () => {
  it('two simulators side by side get their own free ports and state', async () => {
    const [a, b] = await Promise.all([start(), start()]);
    expect(a.url).not.toBe(b.url);
    await a.control.putDevice('8810SIDEBYSIDE01', { is_bind: false });
    expect((await a.control.getDevice('8810SIDEBYSIDE01')).is_bind).toBe(false);
    await expect(b.control.getDevice('8810SIDEBYSIDE01')).rejects.toMatchObject({ status: 404 });
  });

  it('loads the fixtures folder it is given (an empty one: no apps)', async () => {
    const empty = await tempDataDir();
    try {
      const sim = await start({ fixturesDir: empty.dir });
      expect(await sim.control.listApps()).toEqual([]);
    } finally {
      await empty.cleanup();
    }
  });

  it('applies config overrides: the control client carries the admin token, storage the public URL', async () => {
    const sim = await start({ config: { adminToken: 'embed-token', publicUrl: 'http://sim.example:9000' } });
    expect(sim.urls.storage).toBe('http://sim.example:9000/storage');
    expect((await sim.control.health()).status).toBe('ok');
    expect((await fetch(`${sim.urls.admin}/apps`)).status).toBe(401);
    expect((await sim.control.listApps()).length).toBeGreaterThan(0);
  });

  it('names the EU and SG bases only when config.regions serves them, and the control client makes apps there', async () => {
    const plain = await start();
    expect(plain.urls.eu).toBeUndefined();
    await expect(plain.control.createApp({ region: 'eu' })).rejects.toMatchObject({ status: 400 });
    const sim = await start({ config: { regions: ['us', 'jp', 'eu'] } });
    expect(sim.urls.eu).toBe(`${sim.url}/eu/developer/api`);
    expect(sim.urls.sg).toBeUndefined();
    expect((await sim.control.createApp({ region: 'eu' })).region).toBe('eu');
  });

  it('the same seed gives the same generated credentials', async () => {
    const [a, b] = await Promise.all([start({ seed: 'same' }), start({ seed: 'same' })]);
    const [x, y] = await Promise.all([
      a.control.createApp({ client_id: 'seeded-app' }),
      b.control.createApp({ client_id: 'seeded-app' }),
    ]);
    expect(x.secret_key).toBe(y.secret_key);
  });

  it('stop() closes the port and may be called twice', async () => {
    const sim = await start();
    await sim.stop();
    await sim.stop();
    await expect(fetch(`${sim.urls.admin}/health`)).rejects.toThrow();
  });
});
