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
