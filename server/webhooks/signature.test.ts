import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { signatureHeaders, verifyWebhook } from './signature.js';

const body = '{"id":"evt_1","event":"transcription.completed","data":{}}';
const now = Date.parse('2030-01-01T00:00:00Z');
const ts = now / 1000;

describe('verifyWebhook', () => {
  it('accepts what signatureHeaders signed, in either scheme, from plain or fetch headers', () => {
    const cur = signatureHeaders('current', 's3cret-key', body, ts);
    expect(verifyWebhook({ secret: 's3cret-key', body, headers: cur, nowMs: now })).toEqual({ ok: true });
    expect(
      verifyWebhook({ secret: 's3cret-key', body: Buffer.from(body), headers: new Headers(cur), nowMs: now }),
    ).toEqual({ ok: true });
    const old = signatureHeaders('legacy', 's3cret-key', body, ts);
    expect(Object.keys(old)).toEqual(['Plaud-Signature']);
    expect(verifyWebhook({ secret: 's3cret-key', body, headers: old, scheme: 'legacy' })).toEqual({
      ok: true,
    });
  });

  it('never passes with an empty or missing secret, not even a delivery forged with the empty key', () => {
    for (const scheme of ['current', 'legacy'] as const) {
      const forged = signatureHeaders(scheme, '', body, ts);
      for (const secret of ['', '  ', undefined, null as unknown as string])
        expect(verifyWebhook({ secret, body, headers: forged, scheme, nowMs: now }), String(secret)).toEqual({
          ok: false,
          reason: 'no_secret',
        });
    }
  });

  it('names what is wrong', () => {
    const cur = signatureHeaders('current', 's3cret-key', body, ts);
    const v = (over: Partial<Parameters<typeof verifyWebhook>[0]>) =>
      verifyWebhook({ secret: 's3cret-key', body, headers: cur, nowMs: now, ...over });
    expect(v({ headers: {} })).toEqual({ ok: false, reason: 'missing_signature' });
    expect(v({ headers: { 'plaud-signature': cur['plaud-signature']! } })).toEqual({
      ok: false,
      reason: 'missing_timestamp',
    });
    expect(v({ headers: { ...cur, 'plaud-timestamp': 'soon' } })).toEqual({
      ok: false,
      reason: 'missing_timestamp',
    });
    expect(v({ secret: 'other-key' })).toEqual({ ok: false, reason: 'bad_signature' });
    expect(v({ body: `${body} ` })).toEqual({ ok: false, reason: 'bad_signature' });
    // A signature cut short is refused, not compared past its end.
    expect(v({ headers: { ...cur, 'plaud-signature': 'sha256=ab' } })).toEqual({
      ok: false,
      reason: 'bad_signature',
    });
    // The timestamp is signed: moving it breaks the signature; an old one is stale.
    expect(v({ headers: { ...cur, 'plaud-timestamp': String(ts + 1) } })).toEqual({
      ok: false,
      reason: 'bad_signature',
    });
    expect(v({ nowMs: now + 301_000 })).toEqual({ ok: false, reason: 'stale_timestamp' });
    expect(v({ nowMs: now + 301_000, toleranceS: 600 })).toEqual({ ok: true });
    expect(verifyWebhook({ secret: 's3cret-key', body, headers: cur, scheme: 'legacy' })).toEqual({
      ok: false,
      reason: 'bad_signature',
    });
  });
});

describe('verifyWebhook on whatever a receiver hands it', () => {
  const cur = signatureHeaders('current', 's3cret-key', body, ts);
  const REASONS = [
    'no_secret',
    'missing_signature',
    'bad_signature',
    'missing_timestamp',
    'stale_timestamp',
    'body_not_raw',
    'bad_input',
  ];

  it('refuses a parsed body, null headers and no input at all instead of throwing', () => {
    const v = (input: unknown) => verifyWebhook(input as Parameters<typeof verifyWebhook>[0]);
    expect(v({ secret: 's3cret-key', body: JSON.parse(body), headers: cur, nowMs: now })).toEqual({
      ok: false,
      reason: 'body_not_raw',
    });
    expect(v({ secret: 's3cret-key', body, headers: null, nowMs: now })).toEqual({
      ok: false,
      reason: 'missing_signature',
    });
    for (const input of [null, undefined, 42, 'text', true])
      expect(v(input), String(input)).toEqual({ ok: false, reason: 'bad_input' });
    // An object without a secret (an array, a Buffer) is refused for that.
    for (const input of [[], Buffer.from(body)]) expect(v(input)).toEqual({ ok: false, reason: 'no_secret' });
    // A header's value that is not a string is no signature; an array's first string is.
    expect(v({ secret: 's3cret-key', body, headers: { 'plaud-signature': 7 }, nowMs: now })).toEqual({
      ok: false,
      reason: 'missing_signature',
    });
    const arrays = Object.fromEntries(Object.entries(cur).map(([k, x]) => [k, [x, 'other']]));
    expect(v({ secret: 's3cret-key', body, headers: arrays, nowMs: now })).toEqual({ ok: true });
    const throwing = {
      get() {
        throw new Error('boom');
      },
    };
    expect(v({ secret: 's3cret-key', body, headers: throwing })).toEqual({ ok: false, reason: 'bad_input' });
    expect(v({ ...{ secret: 's3cret-key', body, headers: cur }, nowMs: Symbol('x') })).toEqual({
      ok: false,
      reason: 'bad_input',
    });
  });

  it('never throws and never passes for arbitrary input (property)', () => {
    const headerValue = fc.oneof(
      fc.anything(),
      fc.constantFrom(cur['plaud-signature'], cur['plaud-timestamp']),
      fc.array(fc.oneof(fc.string(), fc.anything()), { maxLength: 3 }),
    );
    const headers = fc.oneof(
      fc.anything(),
      fc.dictionary(
        fc.constantFrom('plaud-signature', 'Plaud-Timestamp', 'plaud-timestamp', 'x'),
        headerValue,
      ),
      fc
        .dictionary(fc.string(), fc.string())
        .map((d) => new Headers(Object.entries(d).filter(([k]) => /^[a-z]+$/.test(k)))),
    );
    const field = <T>(a: fc.Arbitrary<T>) => fc.option(a, { nil: undefined });
    const input = fc.oneof(
      fc.anything(),
      fc.record(
        {
          secret: fc.oneof(fc.anything(), fc.string()),
          body: fc.oneof(
            fc.anything(),
            fc.string(),
            fc.uint8Array().map((u) => Buffer.from(u)),
          ),
          headers,
          scheme: field(fc.oneof(fc.constantFrom('current', 'legacy'), fc.anything())),
          toleranceS: field(fc.anything()),
          nowMs: field(fc.anything()),
        },
        { requiredKeys: [] },
      ),
    );
    fc.assert(
      fc.property(input, (x) => {
        const r = verifyWebhook(x as Parameters<typeof verifyWebhook>[0]) as { ok: boolean; reason?: string };
        // Nothing here holds a signature made with the secret it is judged by.
        expect(r.ok).toBe(false);
        expect(REASONS).toContain(r.reason);
      }),
      { numRuns: 2000, seed: 45 },
    );
  });
});
