import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseInstant, SimClock } from '../core/clock.js';
import { Random } from '../core/random.js';
import { FileStore } from '../store/fileStore.js';
import { MemoryStore } from '../store/memoryStore.js';
import { http } from '../testing/http.js';
import { useTestServers } from '../testing/useTestServers.js';
import { Clocks } from './clocks.js';
import { Instance, type InstanceRecord } from './instance.js';

const servers = useTestServers();

const postRaw = (admin: string, raw: string) =>
  http('POST', `${admin}/clock`, { raw, headers: { 'content-type': 'application/json' } });

describe('POST /__admin/clock', () => {
  it('refuses moves that leave years 1970-9999 or name no real instant, naming the field', async () => {
    const s = await servers.start();
    const before = (await http('GET', `${s.admin}/clock`)).body;
    const bad: [string, string][] = [
      ['{"advance_ms": 1e20}', 'body.advance_ms'],
      ['{"advance_ms": -1e20}', 'body.advance_ms'],
      [`{"advance_ms": ${2 ** 53}}`, 'body.advance_ms'],
      ['{"advance_ms": 1e400}', 'body.advance_ms'],
      ['{"advance_ms": -1e400}', 'body.advance_ms'],
      // Within the schema's bound, but from today it lands before 1970.
      ['{"advance_ms": -253402300799999}', 'body.advance_ms'],
      ['{"now": "2030-12-31T23:59:60Z"}', 'body.now'],
      ['{"now": "2030-02-30T00:00:00Z"}', 'body.now'],
      ['{"now": "1969-12-31T23:59:59Z"}', 'body.now'],
      ['{"now": "0000-01-01T00:00:00Z"}', 'body.now'],
    ];
    for (const [raw, field] of bad) {
      const r = await postRaw(s.admin, raw);
      expect(r.status, raw).toBe(422);
      expect(
        r.body.detail.map((d: { loc: string[] }) => d.loc.join('.')),
        raw,
      ).toContain(field);
    }
    const after = (await http('GET', `${s.admin}/clock`)).body;
    expect(Math.abs(after.offset_ms - before.offset_ms)).toBeLessThan(1000);
    const edge = await http('POST', `${s.admin}/clock`, { json: { now: '9999-12-31T23:59:59.999Z' } });
    expect(edge.status).toBe(200);
    expect((await http('GET', `${s.admin}/clock`)).status).toBe(200);
    expect((await http('POST', `${s.admin}/clock`, { json: { advance_ms: 1000 } })).status).toBe(422);
  });

  it('never persists a refused move: a restart shows the last good clock', async () => {
    const dir = await servers.tempDir();
    const a = await servers.start({ inMemory: false, dataDir: dir });
    await http('POST', `${a.admin}/clock`, { json: { now: '2031-01-01T00:00:00Z', freeze: true } });
    expect((await postRaw(a.admin, '{"advance_ms": 1e20}')).status).toBe(422);
    await a.stop();
    const b = await servers.start({ inMemory: false, dataDir: dir });
    expect((await http('GET', `${b.admin}/clock`)).body.now).toBe('2031-01-01T00:00:00.000Z');
  });
});

describe('a data folder holding an impossible clock', () => {
  for (const [label, patch] of [
    ['offset 1e20', { clockOffsetMs: 1e20 }],
    ['offset null (1e400 as JSON)', { clockOffsetMs: null }],
    ['frozen at -1e20', { clockFrozenAt: -1e20 }],
  ] as const) {
    it(`starts with the clock repaired to real time: ${label}`, async () => {
      const dir = await servers.tempDir();
      const a = await servers.start({ inMemory: false, dataDir: dir });
      await a.stop();
      const store = await FileStore.open(join(dir, 'state'));
      const meta = store.mirrored<InstanceRecord>('meta');
      await meta.put('instance', { ...meta.peek('instance')!, ...(patch as Partial<InstanceRecord>) });
      await store.close();

      const b = await servers.start({ inMemory: false, dataDir: dir });
      const clock = await http('GET', `${b.admin}/clock`);
      expect(clock.status).toBe(200);
      expect(clock.body).toMatchObject({ offset_ms: 0, frozen: false });
      expect((await http('GET', `${b.admin}/apps`)).status).toBe(200);
    });
  }
});

describe('Instance on a shared store', () => {
  it('moves its clock when another instance moves the stored instance clock', async () => {
    const store = new MemoryStore();
    const here = await Instance.boot(store, new Random('here'));
    const clock = here.makeClock();
    here.follow(clock);
    const there = await Instance.boot(store, new Random('there'));
    await there.update({ clockOffsetMs: 0, clockFrozenAt: Date.UTC(2030, 0, 1), clockShiftMs: 42 });
    expect([clock.now(), clock.frozenAtMs, clock.shiftMs]).toEqual([
      Date.UTC(2030, 0, 1),
      Date.UTC(2030, 0, 1),
      42,
    ]);
    await there.update({ clockOffsetMs: 5000, clockFrozenAt: null, clockShiftMs: 0 });
    expect([clock.frozenAtMs, clock.offsetMs]).toEqual([undefined, 5000]);
    expect(here.generation).toBe(1);
  });
});

describe('Clocks of two instances on one store', () => {
  it('counts two simultaneous advances of the instance clock, and both local clocks follow', async () => {
    const store = new MemoryStore();
    const real = () => Date.UTC(2026, 0, 1);
    const make = async (seed: string) => {
      const instance = await Instance.boot(store, new Random(seed));
      const clock = instance.makeClock(real);
      instance.follow(clock);
      return { clock, clocks: new Clocks(clock, instance, store) };
    };
    const a = await make('a');
    const b = await make('b');
    await Promise.all([a.clocks.change({ advance_ms: 1000 }), b.clocks.change({ advance_ms: 2000 })]);
    expect(store.mirrored<InstanceRecord>('meta').peek('instance')).toMatchObject({
      clockOffsetMs: 3000,
      clockShiftMs: 3000,
    });
    expect([a.clock.offsetMs, b.clock.offsetMs]).toEqual([3000, 3000]);
    await a.clocks.change({ freeze: true });
    await b.clocks.change({ advance_ms: 500 });
    expect(a.clock.now()).toBe(real() + 3500);
    expect(b.clocks.state()).toMatchObject({ frozen: true, offset_ms: 3500 });
  });
});

describe('Instance.boot', () => {
  it('says what it repaired, and keeps the secret and start count', async () => {
    const store = new MemoryStore();
    const first = await Instance.boot(store, new Random('t'));
    await first.update({ clockOffsetMs: 1e20 });
    const warnings: string[] = [];
    const again = await Instance.boot(store, new Random('t'), (m) => warnings.push(m));
    expect(warnings.join('\n')).toMatch(/outside years 1970-9999.*offset 0/);
    expect(again.clockOffsetMs).toBe(0);
    expect(again.generation).toBe(1);
    expect(again.secret('jwt').equals(first.secret('jwt'))).toBe(true);
    expect(store.mirrored<InstanceRecord>('meta').peek('instance')?.clockOffsetMs).toBe(0);
  });
});

describe('parseInstant', () => {
  it('accepts real RFC 3339 instants and nothing else', () => {
    expect(parseInstant('2030-06-01T12:00:00+14:00')).toBe(Date.parse('2030-06-01T12:00:00+14:00'));
    expect(parseInstant('2028-02-29T00:00:00.5z')).toBe(Date.parse('2028-02-29T00:00:00.500Z'));
    for (const s of ['2030-02-29T00:00:00Z', '2030-13-01T00:00:00Z', '2030-01-01T24:00:00Z', '2030-01-01']) {
      expect(parseInstant(s), s).toBeUndefined();
    }
  });
});

describe('Clocks: moves land exactly', () => {
  it('{now, freeze: true} freezes at exactly `now`, even when real time ticks between the steps', async () => {
    let real = Date.UTC(2026, 0, 1);
    const ticking = () => real++; // every read of real time moves it 1 ms
    const store = new MemoryStore();
    const instance = await Instance.boot(store, new Random('clocks-unit'), () => {});
    const clocks = new Clocks(new SimClock(0, ticking), instance, store);
    const all = await clocks.change({ now: '2031-01-01T00:00:00Z', freeze: true });
    expect(all.now).toBe('2031-01-01T00:00:00.000Z');
    const one = await clocks.change({ client_id: 'app-a', now: '2032-01-01T00:00:00Z', freeze: true });
    expect(one.now).toBe('2032-01-01T00:00:00.000Z');
    expect(clocks.state().now).toBe('2031-01-01T00:00:00.000Z');
  });
});

describe('Clocks: offsets read exactly', () => {
  it('reports a running app clock moved by an hour as exactly 3600000 ms ahead', async () => {
    let real = Date.UTC(2026, 0, 1);
    const store = new MemoryStore();
    const instance = await Instance.boot(store, new Random('clocks-offset'), () => {});
    const clocks = new Clocks(new SimClock(0, () => real++), instance, store);
    expect((await clocks.change({ client_id: 'app-a', advance_ms: 3_600_000 })).offset_ms).toBe(3_600_000);
    expect(clocks.state('app-a').offset_ms).toBe(3_600_000);
    expect(clocks.state().offset_ms).toBe(0);
  });
});
