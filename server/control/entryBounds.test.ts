import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { hugeJsonBodies, manyKeyBody } from '../testing/hostileBodies.js';
import { http } from '../testing/http.js';
import { useTestServers } from '../testing/useTestServers.js';
import { boundEntry, MAX_BODY_SUMMARY_BYTES, MAX_ENTRY_BYTES, summarizeBody } from './entryBounds.js';

const servers = useTestServers();
const bytes = (v: unknown) => Buffer.byteLength(JSON.stringify(v));

/** Bodies of every hostile shape: many keys, deep nesting, huge strings and keys, long arrays. */
function hostileShapes(): unknown[] {
  const wide = (n: number, v: (i: number) => unknown) =>
    Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, v(i)]));
  return [
    JSON.parse(manyKeyBody()),
    ...hugeJsonBodies()
      .slice(2)
      .map((b) => JSON.parse(b)),
    wide(30, () => wide(30, () => wide(30, () => 'v'.repeat(300)))),
    wide(30, () => Array.from({ length: 30 }, () => wide(30, (i) => i))),
    Array.from({ length: 100_000 }, (_, i) => ({ [`key${i}`.repeat(50)]: '\u0001'.repeat(300) })),
    { ['\u0001'.repeat(5000)]: '\u2028'.repeat(5000), __proto__x: 1 },
    JSON.parse('{"__proto__": {"polluted": true}, "a": 1}'),
  ];
}

describe('journal entry bounds', () => {
  it('a body summary stays within its byte bound, keys included, whatever the shape', () => {
    for (const body of hostileShapes()) {
      expect(bytes(summarizeBody(body, {}))).toBeLessThanOrEqual(MAX_BODY_SUMMARY_BYTES);
    }
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 6 }), (v) => {
        expect(bytes(summarizeBody(v, {}) ?? null)).toBeLessThanOrEqual(MAX_BODY_SUMMARY_BYTES);
      }),
      { seed: 20, numRuns: 300 },
    );
    // Small bodies are shown whole; a cut one says how much it left out.
    expect(summarizeBody({ user_id: 'u1', n: [1, 2] }, {})).toEqual({ user_id: 'u1', n: [1, 2] });
    const many = summarizeBody(JSON.parse(manyKeyBody()), {}) as Record<string, unknown>;
    expect(many['…']).toMatch(/^\d+ more keys$/);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('a built entry stays within MAX_ENTRY_BYTES whatever its parts hold', () => {
    const headers = Object.fromEntries(
      Array.from({ length: 2000 }, (_, i) => [`x-h${i}`, '\u0001'.repeat(500)]),
    );
    const e = boundEntry({
      path: `/x?${'\u0001'.repeat(100_000)}`,
      headers,
      client_id: 'c'.repeat(10_000),
      body_summary: summarizeBody(JSON.parse(manyKeyBody()), {}),
      warnings: Array.from({ length: 100 }, () => 'w'.repeat(5000)),
      error: 'e'.repeat(10_000),
    });
    expect(bytes(e)).toBeLessThanOrEqual(MAX_ENTRY_BYTES);
  });

  it('refused 1 MB many-key requests: each entry kept in a few KiB, not the body’s keys', async () => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const s = await servers.start();
    const body = manyKeyBody();
    const send = () =>
      http('POST', `${s.api}/open/partner/users/access-token`, {
        headers: { 'content-type': 'application/json' },
        raw: body,
      });
    // Warm up (validators, lazily built code), then measure what N more entries retain.
    expect((await send()).status).toBe(401);
    const heap = () => {
      gc();
      gc();
      return process.memoryUsage().heapUsed;
    };
    const before = heap();
    const n = 6;
    for (let i = 0; i < n; i++) expect((await send()).status).toBe(401);
    const perEntry = (heap() - before) / n;
    // Before the bound each such entry kept every key: about 9 MiB.
    expect(perEntry).toBeLessThan(256 * 1024);
    const entries = (await http('GET', `${s.admin}/requests?operation=createUserToken`)).body as unknown[];
    expect(entries).toHaveLength(n + 1);
    for (const e of entries) expect(bytes(e)).toBeLessThanOrEqual(MAX_ENTRY_BYTES);
  });
});
