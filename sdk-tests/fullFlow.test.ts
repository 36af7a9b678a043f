import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pollTranscription } from '../server/client/poll.js';
import { completeUpload, md5hex, putPart, startUpload } from '../server/client/steps.js';
import { readTranscript, submitTranscription } from '../server/client/transcription.js';
import { AUDIO_FIXTURES, readAudio } from '../server/testing/audioFixtures.js';
import { DEMO_US, http, userToken } from '../server/testing/http.js';
import { startTestServer, type TestServer } from '../server/testing/testServer.js';

// The whole partner journey over real HTTP: tokens → upload a real audio file in parts →
// complete → transcribe its DownloadUrl → poll. Instead of sleeping between polls, the
// client's wait moves the simulator's clock, which is frozen otherwise, so the statuses seen
// are exact. Transcriptions take 20 s of simulated time here (PENDING 2 s, RECEIVED 3 s,
// STARTED 3 s, PROGRESS 12 s).

let sim: TestServer;
beforeAll(async () => {
  // 8 KiB parts: the MP3 fixture (live's upload API takes mp3 and opus only) is cut in three.
  sim = await startTestServer({ chunkSize: 8 * 1024, transcriptionDelay: 20_000 });
  expect((await http('POST', `${sim.admin}/clock`, { json: { freeze: true } })).status).toBe(200);
});
afterAll(() => sim.stop());

const moveClock = (ms: number) =>
  http('POST', `${sim.admin}/clock`, { json: { advance_ms: ms } }).then((r) => {
    if (r.status !== 200) throw new Error(`clock: ${r.status}`);
  });

describe('full partner flow', () => {
  it('uploads a fixture, transcribes its DownloadUrl and gets a transcript of the real duration', async () => {
    const f = AUDIO_FIXTURES.mp3;
    const bytes = await readAudio(f);
    const { user } = await userToken(sim.api, DEMO_US, 'flow-user-0001');

    const session = await startUpload(sim.api, user, bytes.length, f.filetype);
    expect(session.Parts.length).toBe(Math.ceil(bytes.length / session.ChunkSize));
    expect(session.Parts.length).toBeGreaterThan(1);
    const part_list = [];
    for (const p of session.Parts) {
      const from = (p.PartNumber - 1) * session.ChunkSize;
      const put = await putPart(p.PresignedUrl, bytes.subarray(from, from + session.ChunkSize));
      expect(put.status).toBe(200);
      part_list.push({ PartNumber: p.PartNumber, ETag: put.etag! });
    }
    const done = await completeUpload(sim.api, user, {
      file_id: session.FileId,
      upload_id: session.UploadId,
      part_list,
      filetype: f.filetype,
      file_md5: md5hex(bytes),
    });
    expect(done.status).toBe(200);
    const { DownloadUrl, FileMd5 } = done.body as { DownloadUrl: string; FileMd5: string };
    expect(FileMd5).toBe(md5hex(bytes));

    const submitted = await submitTranscription(sim.api, DEMO_US, DownloadUrl, {
      transcribe: { language: 'auto' },
      diarization: { enabled: true },
    });
    expect(submitted).toEqual({ transcription_id: expect.any(String), status: 'PENDING', data: {} });
    const { task, seen } = await pollTranscription(sim.api, DEMO_US, submitted.transcription_id, {
      deadlineMs: 60_000,
      // A steady 1.5 s between polls (no jitter): shorter than every phase, so none is skipped.
      backoff: { baseMs: 2000, capMs: 2000, random: () => 0.75 },
      sleep: moveClock,
    });
    expect(task.status).toBe('SUCCESS');
    expect(seen).toEqual(['PENDING', 'RECEIVED', 'STARTED', 'PROGRESS', 'SUCCESS']);
    const data = task.data as { duration: number };
    expect(Math.abs(data.duration - f.duration)).toBeLessThan(0.1);
    const transcript = readTranscript(task);
    expect(transcript.language).toBe('en-US');
    expect(transcript.lines.length).toBeGreaterThan(0);
    expect(transcript.text).toBe(transcript.lines.map((l) => l.text).join(' '));
    expect(transcript.lines.at(-1)!.end).toBeLessThanOrEqual(data.duration);
  });
});
