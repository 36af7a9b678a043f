import { describe, expect, it } from 'vitest';
import { Random } from '../core/random.js';
import { MemoryStore } from '../store/memoryStore.js';
import { DeviceRegistry } from './devices.js';

const SN = '8810B30227290003';
const ref = { sn: SN, type: 'notepro' as const };

describe('DeviceRegistry on one shared store', () => {
  it('lets exactly one of two racing binders of one device win; the other gets 403 DEVICE_BOUND', async () => {
    const store = new MemoryStore();
    // Two registries over one store stand for two instances.
    const [a, b] = [new DeviceRegistry(store, new Random('a')), new DeviceRegistry(store, new Random('b'))];
    await a.sign(ref, 'body');
    const results = await Promise.allSettled([
      a.bind(ref, 'body', { sub: 'client_user_1', client_id: 'app-1' }),
      b.bind(ref, 'body', { sub: 'client_user_2', client_id: 'app-2' }),
    ]);
    expect(results.map((r) => r.status).sort()).toEqual(['fulfilled', 'rejected']);
    const lost = results.find((r) => r.status === 'rejected') as PromiseRejectedResult;
    expect(lost.reason).toMatchObject({ status: 403, code: 'DEVICE_BOUND' });
    expect((await a.get(SN)).bind_history).toHaveLength(1);
  });

  it('releases the devices of a deleted app through the owner index only', async () => {
    const reg = new DeviceRegistry(new MemoryStore(), new Random('r'));
    await reg.sign(ref, 'body');
    await reg.bind(ref, 'body', { sub: 'client_user_1', client_id: 'app-1' });
    expect(await reg.releaseApp('app-2')).toBe(0);
    expect(await reg.releaseApp('app-1')).toBe(1);
    expect(await reg.get(SN)).toMatchObject({ is_bind: false, owner: null });
  });
});
