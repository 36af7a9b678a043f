import { readFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fromRoot } from '../core/root.js';
import { http } from '../testing/http.js';
import { startTestServer, type TestServer } from '../testing/testServer.js';
import { runBinding } from './binding.js';
import type { CommandIo } from './io.js';
import { runTranscribe } from './transcribe.js';

// The client commands run in-process with captured streams (not terminals, so progress comes
// as plain lines). `--target sim` starts its own simulator; the failure cases use a shared
// test server reached as `--target <url>`, with fault rules arranging what goes wrong.

const io = (env: Record<string, string> = {}) => {
  const out: string[] = [];
  const err: string[] = [];
  const streams: CommandIo = {
    stdout: { write: (c: string) => out.push(c) },
    stderr: { write: (c: string) => err.push(c) },
    env,
  };
  return { streams, out: () => out.join(''), err: () => err.join('') };
};
const meeting = fromRoot('fixtures', 'audio', 'meeting.mp3');

let sim: TestServer;
beforeAll(async () => {
  sim = await startTestServer({ transcriptionDelay: 500, chunkSize: 8 * 1024 });
});
afterAll(() => sim.stop());

describe('partner-sim transcribe', () => {
  it('uploads meeting.mp3 to an in-process simulator and prints its true transcript', async () => {
    const truth = JSON.parse(await readFile(`${meeting}.transcript.json`, 'utf8')) as {
      language: string;
      segments: { text: string; speaker: string }[];
    };
    const c = io();
    expect(await runTranscribe([meeting], c.streams)).toBe(0);
    const out = c.out();
    expect(out).toMatch(
      /^upload: \d+% {2}[\d.]+ KiB \/ 23\.2 KiB {2}[\d.]+ (B|KiB|MiB)\/s {2}ETA \d+:\d\d$/m,
    );
    expect(out).toMatch(/^upload: 100% /m);
    expect(out).toContain('(MD5 bfb650e733b2adbcef5a77b92b4d8eea checked)');
    expect(out).toMatch(/: PENDING\n[\s\S]*: SUCCESS\n/);
    const seg = truth.segments[0]!;
    expect(out).toContain(`transcript (${truth.language}, 1 segment):`);
    expect(out).toMatch(
      new RegExp(`\\[0:00\\.00 → 0:05\\.8\\d\\] ${seg.speaker}: ${seg.text.replace(/[.:]/g, '\\$&')}\\n$`),
    );
    expect(c.err()).toBe('');
  });

  it('--json prints the task as JSON on stdout and the progress on stderr', async () => {
    const c = io();
    expect(await runTranscribe([meeting, '--target', sim.url, '--json'], c.streams)).toBe(0);
    const task = JSON.parse(c.out());
    expect(task).toMatchObject({ status: 'SUCCESS', data: { language: 'en-US' } });
    expect(c.err()).toMatch(/^upload: 100% /m);
  });

  it('a .wav against a simulator that keeps live filetypes: one line naming the refusal', async () => {
    const c = io();
    expect(
      await runTranscribe([fromRoot('fixtures', 'audio', 'hello.wav'), '--target', sim.url], c.streams),
    ).toBe(1);
    expect(c.err()).toMatch(/^partner-sim transcribe: the upload API refused the file type: .*\n$/);
  });
});

describe('failures: one line on stderr, non-zero exit, no stack trace', () => {
  const oneLine = (text: string) => {
    expect(text.split('\n')).toHaveLength(2);
    expect(text).not.toMatch(/\n\s+at /);
  };

  it('bad credentials', async () => {
    const c = io({ PARTNER_SECRET_KEY: 'not-the-secret' });
    expect(await runBinding(['8810B30227290003', '--target', sim.url], c.streams)).toBe(1);
    expect(c.err()).toMatch(/^partner-sim binding: bad credentials: .* \(HTTP 401/);
    expect(c.err()).not.toContain('not-the-secret');
    oneLine(c.err());
  });

  it('unknown device', async () => {
    const c = io();
    expect(await runBinding(['8810B30227299999', '--target', sim.url], c.streams)).toBe(1);
    expect(c.err()).toBe(
      'partner-sim binding: unknown device: serial 8810B30227299999 was never signed (HTTP 404); sign it with the SDK first\n',
    );
  });

  it('expired URL', async () => {
    // Two seconds of validity: the other parts, sent at once, stay well inside it even on a
    // loaded machine (with one second, part 2 could expire first and be the one named).
    const short = await startTestServer({ presignExpiryS: 2, chunkSize: 8 * 1024 });
    try {
      // Part 1 is held past its URL's lifetime before it is checked.
      const r = await http('POST', `${short.admin}/faults`, {
        json: { operation: 'uploadPart', delay_ms: 2500, times: 1, match: { part_number: 1 } },
      });
      expect(r.status, r.text).toBe(201);
      const c = io();
      expect(await runTranscribe([meeting, '--target', short.url], c.streams)).toBe(1);
      expect(c.err()).toMatch(/^partner-sim transcribe: expired URL: the presigned URL of part 1 expired/);
      oneLine(c.err());
    } finally {
      await short.stop();
    }
  });

  it('FAILURE status', async () => {
    const r = await http('POST', `${sim.admin}/faults`, {
      json: {
        operation: 'createTranscription',
        transcription_outcome: 'FAILURE',
        message: 'Unsupported audio codec',
        times: 1,
      },
    });
    expect(r.status, r.text).toBe(201);
    const c = io();
    expect(await runTranscribe([meeting, '--target', sim.url], c.streams)).toBe(1);
    expect(c.err()).toBe('partner-sim transcribe: transcription FAILURE: Unsupported audio codec\n');
  });

  it('unreachable target', async () => {
    const closed = await new Promise<number>((done) => {
      const s = createServer().listen(0, '127.0.0.1', () => {
        const { port } = s.address() as { port: number };
        s.close(() => done(port));
      });
    });
    const c = io();
    expect(await runBinding(['8810B30227290003', '--target', `http://127.0.0.1:${closed}`], c.streams)).toBe(
      1,
    );
    expect(c.err()).toBe(
      `partner-sim binding: target unreachable: http://127.0.0.1:${closed}: ECONNREFUSED\n`,
    );
  });

  it('live without credentials names every missing variable', async () => {
    const c = io({ PARTNER_API_KEY: 'k' });
    expect(await runTranscribe([meeting, '--target', 'us'], c.streams)).toBe(2);
    expect(c.err()).toBe(
      'partner-sim transcribe: --target us needs these environment variables: PARTNER_CLIENT_ID, PARTNER_SECRET_KEY, PARTNER_USER_ID\n',
    );
  });
});

describe('partner-sim binding', () => {
  it('prints state, de-duplicated history with counts and the recovery verdict of a fixture serial', async () => {
    const c = io();
    expect(await runBinding(['8810B30227290003'], c.streams)).toBe(0);
    expect(c.out()).toBe(
      [
        '8810B30227290003 (notepro)',
        'state:   is_bind false (unbound)',
        'history: 5 bind events, 4 distinct accounts',
        '  client_user_2992833c-e547-4f8c-9a72-f3d6a9bb9722  ×2',
        '  client_user_a50a928a-85a3-5543-acbb-5a83760d9ce8  ×1',
        '  client_user_b5f6086d-a1b3-5ccf-88a3-6b28ef65d44d  ×1',
        '  client_user_fd5349ed-6e48-4b48-87ac-39f7769c6782  ×1',
        'verdict: try 4 accounts, newest first',
        '  1. client_user_2992833c-e547-4f8c-9a72-f3d6a9bb9722',
        '  2. client_user_a50a928a-85a3-5543-acbb-5a83760d9ce8',
        '  3. client_user_b5f6086d-a1b3-5ccf-88a3-6b28ef65d44d',
        '  4. client_user_fd5349ed-6e48-4b48-87ac-39f7769c6782',
        '',
      ].join('\n'),
    );
  });

  it('refuses recovery of a bound device; --json carries the same verdict', async () => {
    const c = io();
    expect(await runBinding(['8810B30227290004', '--target', sim.url, '--json'], c.streams)).toBe(0);
    const j = JSON.parse(c.out());
    expect(j).toMatchObject({
      sn: '8810B30227290004',
      type: 'notepro',
      binding: { is_bind: true },
      verdict: { action: 'refuse' },
    });
    expect(j.history).toEqual([
      { account: 'client_user_b5f6086d-a1b3-5ccf-88a3-6b28ef65d44d', count: 3 },
      { account: 'client_user_0c80282d-c39b-445c-9075-3a83ab9905dd', count: 1 },
    ]);
  });

  it('--help and -h of each command, naming --base-url', async () => {
    for (const run of [runBinding, runTranscribe]) {
      for (const flag of ['--help', '-h']) {
        const c = io();
        expect(await run([flag], c.streams)).toBe(0);
        expect(c.out()).toMatch(/^Usage: partner-sim (binding|transcribe) .*\n[\s\S]*PARTNER_USER_ID/);
        expect(c.out()).toContain('--base-url <url>');
      }
    }
  });

  it('--base-url reaches a running simulator, as --target <url> does', async () => {
    const c = io();
    expect(await runBinding(['8810B30227290004', '--base-url', sim.url, '--json'], c.streams)).toBe(0);
    expect(JSON.parse(c.out())).toMatchObject({ binding: { is_bind: true } });
  });
});
