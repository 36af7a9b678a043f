import { afterAll, beforeAll, expect } from 'vitest';
import { apiSpec } from '../spec/openapi.js';
import { validatorsFor } from '../spec/validators.js';
import { WIDE_FILETYPES } from './audioFixtures.js';
import { DEMO_US, http } from './http.js';
import { startTestServer, type TestServer } from './testServer.js';
import { useTestServers } from './useTestServers.js';

// Shared by the transcription HTTP tests. Their simulators run transcriptions that take
// exactly 20 s of simulated time: PENDING [0, 2 s), RECEIVED [2, 5 s), STARTED [5, 8 s),
// PROGRESS [8, 20 s), SUCCESS. The phases are wide so the real time a slow machine spends
// in between cannot skip one.
export const DELAY = 20_000;

/**
 * The servers of a transcription test file: `sim()` is one simulator the whole file shares
 * (on the DELAY timeline; each test keeps to its own tasks), `start()` and `tempDir()` give
 * fresh ones per test (see useTestServers).
 */
export function useTranscriptionServers() {
  let shared: TestServer | undefined;
  beforeAll(async () => {
    // Widened upload filetypes: these tests read every fixture format, upload rules are not theirs.
    shared = await startTestServer({ transcriptionDelay: DELAY, uploadFiletypes: WIDE_FILETYPES });
  });
  afterAll(() => shared?.stop());
  const sim = (): TestServer => {
    if (!shared) throw new Error('the shared simulator starts in beforeAll');
    return shared;
  };
  return { ...useTestServers(), sim };
}

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
