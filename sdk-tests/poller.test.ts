import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { PollDeadlineExceeded, pollTranscription, TranscriptionFailed } from '../server/client/poll.js';
import { fullJitter } from '../server/client/retry.js';
import { DEMO_US, http } from '../server/testing/http.js';
import { scaledBudget } from '../server/testing/scaledBudget.js';
import { startTestServer, type TestServer } from '../server/testing/testServer.js';

// A partner's transcription poller against the simulator: back-off with full jitter, a hard
// deadline, transient errors injected by fault rules, and the terminal failures FAILURE
// (fault rule) and REVOKED (forced through the control API). The poller's waits move the
// simulator's clock instead of sleeping, so simulated minutes take real milliseconds.

let sim: TestServer;
beforeAll(async () => {
  sim = await startTestServer({ transcriptionDelay: 20_000 });
  // Frozen: only the poller's waits move simulated time, so the timings asserted are exact.
  await http('POST', `${sim.admin}/clock`, { json: { freeze: true } });
});
afterAll(() => sim.stop());
beforeEach(async () => {
  await http('DELETE', `${sim.admin}/faults`);
});

const app = { client_id: DEMO_US.client_id, api_key: DEMO_US.api_key };
const fault = async (json: Record<string, unknown>) => {
  const r = await http('POST', `${sim.admin}/faults`, { json });
  expect(r.status, r.text).toBe(201);
};
const submit = async (): Promise<string> => {
  const r = await http('POST', `${sim.api}/open/partner/ai/transcriptions/`, {
    headers: { 'x-client-id': app.client_id, 'x-client-api-key': app.api_key },
    json: { file_url: 'https://example.com/audio/meeting.mp3' },
  });
  expect(r.status).toBe(200);
  return r.body.transcription_id;
};
/** A client clock that only moves when the poller waits, and moves the simulator's with it. */
const simulatedTime = () => {
  const waits: number[] = [];
  let t = 0;
  return {
    waits,
    elapsed: () => t,
    now: () => t,
    sleep: async (ms: number) => {
      waits.push(ms);
      t += ms;
      await http('POST', `${sim.admin}/clock`, { json: { advance_ms: ms } });
    },
  };
};
const backoff = { baseMs: 1000, capMs: 8000 };

describe('transcription poller', () => {
  it('reaches SUCCESS through transient 503s and a truncated answer', async () => {
    const id = await submit();
    await fault({ operation: 'getTranscription', status: 503, times: 2 });
    await fault({ operation: 'getTranscription', action: 'malformed', times: 1 });
    const clock = simulatedTime();
    const r = await pollTranscription(sim.api, app, id, { deadlineMs: 120_000, backoff, ...clock });
    expect(r.task.status).toBe('SUCCESS');
    expect(r.transientErrors).toBe(3);
    expect(r.seen.at(-1)).toBe('SUCCESS');
    expect(clock.elapsed()).toBeGreaterThanOrEqual(20_000);
    // Full jitter: each wait lies in [0, min(cap, base·2^n)).
    clock.waits.forEach((w, n) => {
      expect(w).toBeGreaterThanOrEqual(0);
      expect(w).toBeLessThan(Math.min(8000, 1000 * 2 ** n));
    });
  });

  it('reports FAILURE with the service message', async () => {
    await fault({
      operation: 'createTranscription',
      transcription_outcome: 'FAILURE',
      message: 'Unsupported audio codec',
      times: 1,
    });
    const id = await submit();
    const err = await pollTranscription(sim.api, app, id, {
      deadlineMs: 120_000,
      backoff,
      ...simulatedTime(),
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TranscriptionFailed);
    expect(err).toMatchObject({ status: 'FAILURE', task: { message: 'Unsupported audio codec' } });
  });

  it('reports REVOKED when the task is revoked mid-way', async () => {
    const id = await submit();
    const clock = simulatedTime();
    const sleep = async (ms: number) => {
      await clock.sleep(ms);
      if (clock.waits.length === 2) {
        const r = await http('PUT', `${sim.admin}/transcriptions/${id}`, { json: { status: 'REVOKED' } });
        expect(r.status).toBe(200);
      }
    };
    const err = await pollTranscription(sim.api, app, id, {
      deadlineMs: 120_000,
      backoff,
      ...clock,
      sleep,
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TranscriptionFailed);
    expect((err as TranscriptionFailed).status).toBe('REVOKED');
    expect((err as TranscriptionFailed).task.message).toEqual(expect.any(String));
  });

  it('stops exactly at the deadline when the task never ends', async () => {
    await fault({ operation: 'createTranscription', transcription_outcome: 'PROGRESS', times: 1 });
    const id = await submit();
    const clock = simulatedTime();
    const err = await pollTranscription(sim.api, app, id, { deadlineMs: 90_000, backoff, ...clock }).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(PollDeadlineExceeded);
    expect((err as PollDeadlineExceeded).last).toBe('PROGRESS');
    expect(clock.elapsed()).toBe(90_000);
  });

  it('does not let a hung request outlive the deadline (real time)', async () => {
    const id = await submit();
    await fault({ operation: 'getTranscription', action: 'hang' });
    const t0 = performance.now();
    const err = await pollTranscription(sim.api, app, id, { deadlineMs: 300 }).catch((e: unknown) => e);
    const took = performance.now() - t0;
    expect(err).toBeInstanceOf(PollDeadlineExceeded);
    expect(took).toBeGreaterThanOrEqual(290);
    // A hang never ends by itself: anything near the deadline proves the poller cut it.
    expect(took).toBeLessThan(scaledBudget(3000));
  });
});

describe('fullJitter', () => {
  it('draws below a ceiling that doubles up to the cap', () => {
    const top = { baseMs: 100, capMs: 1000, random: () => 0.999999 };
    expect([0, 1, 2, 3, 4, 5].map((n) => fullJitter(n, top))).toEqual([99, 199, 399, 799, 999, 999]);
    expect(fullJitter(3, { ...top, random: () => 0 })).toBe(0);
  });
});
