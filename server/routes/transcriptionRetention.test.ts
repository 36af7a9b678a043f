import { describe, expect, it } from 'vitest';
import { http } from '../testing/http.js';
import {
  advance,
  DELAY,
  externalUrl,
  poll,
  submit,
  useTranscriptionServers,
} from '../testing/transcriptionKit.js';

const { start } = useTranscriptionServers();
const DAY = 86_400_000;
/** A simulator on a frozen clock: only the test moves time, so the edges can be exact. */
async function frozen(overrides: Parameters<typeof start>[0]) {
  const s = await start(overrides);
  await http('POST', `${s.admin}/clock`, { json: { freeze: true } });
  return s;
}

describe('result retention', () => {
  it('keeps a finished task 7 days by default, then answers 404 exactly as for an unknown id', async () => {
    const s = await frozen({ transcriptionDelay: DELAY });
    const id = (await submit(s, { file_url: externalUrl() })).body.transcription_id;
    await advance(s, DELAY); // SUCCESS now: the 7 days start here
    expect((await poll(s, id)).body.status).toBe('SUCCESS');
    await advance(s, 7 * DAY - 1000);
    expect((await poll(s, id)).body.status).toBe('SUCCESS');
    await advance(s, 1000);
    const gone = await poll(s, id);
    const unknown = await poll(s, 'no-such-task');
    expect(gone.status).toBe(404);
    expect(gone.body).toEqual(unknown.body);
    expect(await s.services.deps.store.collection('transcriptions').get(id)).toBeUndefined(); // deleted, not hidden
    expect(gone.body.detail).toBe('TRANSCRIPTION_NOT_FOUND');
    const listed = (await http('GET', `${s.admin}/transcriptions`)).body;
    expect(listed.some((t: { transcription_id: string }) => t.transcription_id === id)).toBe(false);
    expect(
      (await http('PUT', `${s.admin}/transcriptions/${id}`, { json: { status: 'SUCCESS' } })).status,
    ).toBe(404);
  });

  it('follows --result-retention, counts failures from when they failed, and never expires a running task', async () => {
    const s = await frozen({ transcriptionDelay: DELAY, resultRetentionMs: 3_600_000 });
    const ok = (await submit(s, { file_url: externalUrl() })).body.transcription_id;
    const stuck = (await submit(s, { file_url: externalUrl() })).body.transcription_id;
    await http('PUT', `${s.admin}/transcriptions/${stuck}`, { json: { status: 'PROGRESS' } });
    await advance(s, DELAY + 3_600_000 - 1);
    expect((await poll(s, ok)).status).toBe(200);
    // A failure pinned now keeps its answer for an hour from now.
    await http('PUT', `${s.admin}/transcriptions/${ok}`, { json: { status: 'FAILURE' } });
    await advance(s, 3_599_999);
    expect((await poll(s, ok)).body.status).toBe('FAILURE');
    await advance(s, 1);
    expect((await poll(s, ok)).status).toBe(404);
    await advance(s, 30 * DAY);
    expect((await poll(s, stuck)).body.status).toBe('PROGRESS');
  });

  it('sweeps expired tasks nobody polls again in the background, never in a request', async () => {
    const s = await frozen({ transcriptionDelay: DELAY });
    const old = (await submit(s, { file_url: externalUrl() })).body.transcription_id;
    await advance(s, DELAY + 7 * DAY);
    const tasks = s.services.deps.store.collection('transcriptions');
    const fresh = (await submit(s, { file_url: externalUrl() })).body.transcription_id;
    expect(await tasks.get(old)).toBeDefined(); // a submission does not scan every task
    await s.housekeeper.tick(true);
    expect(await tasks.get(old)).toBeUndefined();
    expect(await tasks.get(fresh)).toBeDefined();
  });
});
