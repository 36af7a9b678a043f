import { expect } from 'vitest';
import { apiSpec } from '../spec/openapi.js';
import { validatorsFor } from '../spec/validators.js';
import { DEMO_US, http } from './http.js';
import type { TestServer } from './testServer.js';

// Shared by the transcription HTTP tests. Their simulators run transcriptions that take
// exactly 20 s of simulated time: PENDING [0, 2 s), RECEIVED [2, 5 s), STARTED [5, 8 s),
// PROGRESS [8, 20 s), SUCCESS. The phases are wide so the real time a slow machine spends
// in between cannot skip one.
export const DELAY = 20_000;

export const keys = (app: { client_id: string; api_key: string }) => ({
  'x-client-id': app.client_id,
  'x-client-api-key': app.api_key,
});

export const submit = (s: TestServer, json: unknown, app = DEMO_US) =>
  http('POST', `${s.api}/open/partner/ai/transcriptions/`, { headers: keys(app), json });
export const poll = (s: TestServer, id: string, app = DEMO_US) =>
  http('GET', `${s.api}/open/partner/ai/transcriptions/${id}`, { headers: keys(app) });
export const advance = (s: TestServer, ms: number) =>
  http('POST', `${s.admin}/clock`, { json: { advance_ms: ms } });

let n = 0;
/** An audio URL off the simulator's storage, new on every call. */
export const externalUrl = () => `https://example.com/audio/${++n}-${Date.now()}.mp3`;

export function expectValidTask(body: unknown): void {
  const spec = apiSpec();
  expect(
    validatorsFor(spec).validateResponse(spec.get('getTranscription'), 200, 'application/json', body),
  ).toEqual([]);
}
