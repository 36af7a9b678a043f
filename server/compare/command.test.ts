import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Pseudonyms } from '../control/pseudonyms.js';
import { compareRun } from '../testing/compareRun.js';
import { faultRules, planFaults } from './asFaults.js';
import { Carry } from './carry.js';
import type { ExchangeResult } from './replay.js';

const run = compareRun;

describe('partner-sim compare', () => {
  it('--help says what it does', async () => {
    const { code, out } = await run(['--help']);
    expect(code).toBe(0);
    expect(out).toContain('Usage: partner-sim compare <recording.har>');
    expect(out).toContain('--as-faults');
  });

  it('a missing or broken recording is one clear line, exit 2', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'psim-compare-'));
    try {
      await writeFile(join(dir, 'x.har'), '{"not":"har"}');
      await writeFile(join(dir, 'y.har'), '{"log":');
      expect(await run([join(dir, 'x.har')])).toMatchObject({
        code: 2,
        err: expect.stringContaining('is not a HAR file'),
      });
      expect(await run([join(dir, 'y.har')])).toMatchObject({
        code: 2,
        err: expect.stringContaining('is not JSON'),
      });
      expect(await run([join(dir, 'z.har')])).toMatchObject({
        code: 2,
        err: expect.stringContaining('cannot read'),
      });
      expect((await run([])).code).toBe(2);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('an unreachable URL target fails in one line, exit 1', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'psim-compare-'));
    try {
      await writeFile(
        join(dir, 'r.har'),
        '{"log":{"version":"1.2","creator":{"name":"x","version":"1"},"entries":[]}}',
      );
      const { code, err } = await run([join(dir, 'r.har'), '--target', 'http://127.0.0.1:1']);
      expect(code).toBe(1);
      expect(err).toMatch(/^partner-sim compare: target unreachable or refused: http:\/\/127\.0\.0\.1:1/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('what a replay carries', () => {
  it('placeholders whole, other values longest first', () => {
    const carry = new Carry();
    carry.learn(
      { t: 'redacted-1', u: 'http://a/storage/file_123?sig=redacted-2', id: 'file_123' },
      { t: 'JWT1', u: 'http://b/storage/file_9?sig=s', id: 'file_9' },
    );
    expect(carry.apply('Bearer redacted-1')).toBe('Bearer JWT1');
    expect(carry.apply('Bearer redacted-12')).toBe('Bearer redacted-12');
    expect(carry.apply('http://a/storage/file_123?sig=redacted-2')).toBe('http://b/storage/file_9?sig=s');
    expect(carry.apply('{"file_id":"file_123"}')).toBe('{"file_id":"file_9"}');
    // Words are not values: a status never rewrites a request.
    carry.learn({ s: 'PENDING' }, { s: 'SUCCESS' });
    expect(carry.apply('PENDING')).toBe('PENDING');
  });

  it("a recording's placeholders are stable per value, and user ids keep their length", () => {
    const names = new Pseudonyms();
    const a = names.secret('tok-a');
    expect(names.secret('tok-b')).not.toBe(a);
    expect(names.secret('tok-a')).toBe(a);
    const body = names.json({
      user_id: 'partner-user-4711',
      access_token: 'tok-a',
      bind_history: ['client_user_3f2c8a90-1b2c-4d5e-8f90-123456789abc'],
    }) as Record<string, unknown>;
    expect(body.access_token).toBe(a);
    expect(String(body.user_id)).toHaveLength('partner-user-4711'.length);
    expect(JSON.stringify(body)).not.toMatch(/4711|3f2c8a90/);
    expect(names.text('error for partner-user-4711')).toBe(`error for ${body.user_id}`);
    // A secret of no known shape, once seen, is hidden wherever it is echoed.
    const opaque = names.secret('0123456789abcdef-opaque');
    expect(names.text('the token 0123456789abcdef-opaque is unknown')).toBe(`the token ${opaque} is unknown`);
    expect(names.json({ privateKey: '-----BEGIN PRIVATE KEY-----\nabc' })).toEqual({
      privateKey: expect.stringMatching(/^redacted-\d+$/),
    });
  });
});

describe('--as-faults rules', () => {
  const result = (
    operation: string,
    recorded: number,
    actual: number,
    text: string,
    headers: { name: string; value: string }[] = [],
  ) =>
    ({
      label: '#1',
      operation,
      recorded: { op: operation, status: recorded, form: '', fields: {} },
      actual: { op: operation, status: actual, form: '', fields: {} },
      drift: [],
      entry: { response: { status: recorded, headers, content: { size: text.length, text } } },
    }) as unknown as ExchangeResult;

  it('one rule per recorded error the target did not give, counted, with what a client acts on', () => {
    const xml = '<?xml version="1.0"?><Error><Code>SlowDown</Code></Error>';
    const rules = faultRules(
      [
        result('createTranscription', 429, 200, '{"detail":"RATE_LIMITED"}', [
          { name: 'Retry-After', value: '7' },
        ]),
        result('createTranscription', 429, 200, '{"detail":"RATE_LIMITED"}', [
          { name: 'Retry-After', value: '7' },
        ]),
        result('uploadPart', 503, 200, xml, [{ name: 'Content-Type', value: 'application/xml' }]),
        result('createUserToken', 422, 422, '{"detail":[]}'), // the simulator gives it too
        // A client's own error the target answered otherwise: drift, never a rule (a rule
        // would fail the app's correct token requests).
        result('getPartnerToken', 401, 200, '{"detail":"CLIENT_NOT_FOUND"}'),
        result('getDeviceBinding', 404, 200, '{"detail":"NOT_FOUND"}'),
        result('getPartnerToken', 200, 503, '{}'), // not an error on the recording's side
        result('GET /nowhere', 500, 404, ''), // no operation to put a rule on
      ],
      'app-1',
    );
    expect(rules).toEqual([
      {
        operation: 'createTranscription',
        status: 429,
        body: { detail: 'RATE_LIMITED' },
        headers: { 'retry-after': '7' },
        times: 2,
        match: { client_id: 'app-1' },
      },
      {
        operation: 'uploadPart',
        status: 503,
        body: xml,
        headers: { 'content-type': 'application/xml' },
        times: 1,
        match: { client_id: 'app-1' },
      },
    ]);
  });
});

describe('--as-faults reasons', () => {
  it('each recorded failure without a rule is named with why', () => {
    const r = (operation: string, recorded: number, actual: number, label: string) =>
      ({
        label,
        operation,
        recorded: { status: recorded },
        actual: { status: actual },
        entry: { response: { status: recorded, headers: [], content: { size: 0, text: '' } } },
      }) as unknown as ExchangeResult;
    const plan = planFaults(
      [
        r('getPartnerToken', 401, 401, '#1'),
        r('getPartnerToken', 401, 200, '#2'),
        r('GET /nowhere', 500, 404, '#3'),
        r('createTranscription', 503, 200, '#4'),
        r('createTranscription', 503, 200, '#5'),
      ],
      undefined,
    );
    expect(plan.skipped.map((s) => [s.label, s.why.split(':')[0]])).toEqual([
      ['#1', 'the target answered 401 too'],
      ['#2', "the client's own error, which the simulator must give by itself, but the target answered 200"],
      ['#3', 'no operation of openapi.yaml to put a rule on (the target answered 404)'],
    ]);
    expect(plan.rules.map((p) => p.why)).toEqual([
      'recorded 503 at #4, #5, the target answered 200: a failure of the service the simulator cannot explain',
    ]);
  });
});

describe('what compare loads', () => {
  it('never vitest or pactum (they may be left out of an install): runtime imports only', async () => {
    const { readFile } = await import('node:fs/promises');
    const { dirname, resolve } = await import('node:path');
    const seen = new Set<string>();
    const packages = new Set<string>();
    const queue = [resolve(import.meta.dirname, 'command.ts')];
    for (let f = queue.pop(); f; f = queue.pop()) {
      if (seen.has(f)) continue;
      seen.add(f);
      const text = (await readFile(f, 'utf8')).replace(/^import type [^;]+;$/gm, '');
      for (const m of text.matchAll(/(?:^import [^;]*?from |import\()\s*'([^']+)'/gm)) {
        const spec = m[1]!;
        if (spec.startsWith('.')) queue.push(resolve(dirname(f), spec.replace(/\.js$/, '.ts')));
        else packages.add(spec);
      }
    }
    expect(seen.size).toBeGreaterThan(10);
    expect([...packages].filter((p) => /vitest|pactum/.test(p))).toEqual([]);
  });
});
