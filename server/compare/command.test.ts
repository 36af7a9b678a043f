import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Pseudonyms } from '../control/redact.js';
import { compareRun } from '../testing/compareRun.js';
import { Carry } from './carry.js';

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
    expect(names.json({ privateKey: '-----BEGIN PRIVATE KEY-----\nabc' })).toEqual({
      privateKey: expect.stringMatching(/^redacted-\d+$/),
    });
  });
});
