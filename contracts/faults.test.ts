import { expect } from 'vitest';
import { audioUrl } from './lib/audio.js';
import { apiKeyHeaders, exchange, userToken } from './lib/flows.js';
import { call, errorCode } from './lib/request.js';
import { contractSuite, scenario } from './lib/suite.js';
import type { Target } from './target/types.js';

/** One 429 with `Retry-After: 1` on this file's app's next token exchange; resolves to the rule id. */
const rateLimitOnce = (t: Target): Promise<string> =>
  t.control!.addFault({
    operation: 'getPartnerToken',
    status: 429,
    headers: { 'Retry-After': '1' },
    body: { detail: 'RATE_LIMITED', message: 'Too many requests' },
    times: 1,
    match: { client_id: t.app.client_id },
  });

// Faults are matched to this file's own app (client_id), so runs sharing a simulator never collide.
contractSuite('faults and control plane', () => {
  scenario(
    'getPartnerToken: an injected 429 carries Retry-After and an error body per spec',
    { needs: ['control'] },
    async (t) => {
      const id = await rateLimitOnce(t);
      try {
        const r = await exchange(t, 429);
        expect(r.headers['retry-after']).toBe('1');
        expect(errorCode(r)).toBe('RATE_LIMITED');
        await exchange(t, 200);
      } finally {
        await t.control!.deleteFault(id).catch(() => {});
      }
    },
  );

  scenario(
    'the client honours Retry-After: after a 429 it waits, then succeeds',
    { needs: ['control'] },
    async (t) => {
      await rateLimitOnce(t);
      const started = Date.now();
      await exchange(t, 200);
      expect(Date.now() - started).toBeGreaterThanOrEqual(900);
    },
  );

  scenario(
    'createTranscription: an injected FAILURE outcome ends the task in FAILURE with its message',
    { needs: ['control'] },
    async (t) => {
      await t.control!.addFault({
        operation: 'createTranscription',
        transcription_outcome: 'FAILURE',
        message: 'Unsupported audio codec',
        times: 1,
        match: { client_id: t.app.client_id },
      });
      const file_url = await audioUrl(t, () => userToken(t));
      const id = (
        await call(t, {
          op: 'createTranscription',
          headers: apiKeyHeaders(t.app),
          json: { file_url },
          expect: 200,
        })
      ).body.transcription_id;
      await t.wait(10 * 60_000);
      const r = await call(t, {
        op: 'getTranscription',
        headers: apiKeyHeaders(t.app),
        path: { transcription_id: id },
        expect: 200,
      });
      expect(r.body).toMatchObject({ status: 'FAILURE', data: {}, message: 'Unsupported audio codec' });
    },
  );

  scenario(
    "listRequests: the journal records this app's requests with secrets redacted",
    { needs: ['control'] },
    async (t) => {
      await exchange(t, 200);
      const r = await call(t, {
        op: 'admin:listRequests',
        query: { client_id: t.app.client_id, operation: 'getPartnerToken', limit: 5 },
        expect: 200,
      });
      expect(r.body.length).toBeGreaterThan(0);
      expect(r.body[0].operation).toBe('getPartnerToken');
      expect(r.text).not.toContain(t.app.secret_key);
      expect(r.text).not.toContain(Buffer.from(`${t.app.client_id}:${t.app.secret_key}`).toString('base64'));
    },
  );

  scenario(
    'with the live error shape, domain errors are {code, message} and still conform to the spec',
    { needs: ['control'] },
    async (t) => {
      const app = await t.control!.createApp({
        client_id: t.uniqueId('contract-live-errors'),
        error_shape: 'live',
      });
      const r = await call(t, {
        op: 'getTranscription',
        headers: apiKeyHeaders(app),
        path: { transcription_id: t.uniqueId('no-such-task') },
        expect: 404,
      });
      expect(r.body.code).toBe(404);
      expect(errorCode(r)).toBe('TRANSCRIPTION_NOT_FOUND');
    },
  );
});
