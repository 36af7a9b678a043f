import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A small OpenAI-compatible speech server for tests, on 127.0.0.1: `POST
 * /v1/audio/transcriptions` (multipart `file`, `model`, `language`, `response_format`;
 * `verbose_json` answered with `{task, language, duration, text, segments[{id, start, end,
 * text, avg_logprob}]}`, as OpenAI's API reference describes it) and LocalAI's `POST
 * /v1/audio/diarization` (`{task, duration, num_speakers, segments[{id, speaker, label, start,
 * end}]}`). `mode` makes it misbehave; `calls` records what it was sent.
 */
/** `redirect`: a 307 to `/elsewhere` on the same stub (where a client that follows it re-sends the audio). */
type StubMode = 'ok' | 'error' | 'hang' | 'huge' | 'not-json' | 'redirect';

interface StubCall {
  path: string;
  contentType: string;
  fields: Record<string, string>;
  fileName?: string;
  fileSize: number;
}

export interface SpeechStub {
  url: string;
  calls: StubCall[];
  mode: StubMode;
  /** Real ms to wait before answering (a slow engine). */
  delayMs: number;
  close(): Promise<void>;
}

export const STUB_SEGMENTS = [
  { start: 0, end: 1.5, text: ' Good morning, everyone.' },
  { start: 1.6, end: 3.2, text: ' Shall we look at the budget?' },
  { start: 3.3, end: 4.6, text: ' Yes, the numbers are ready.' },
];

async function readForm(req: IncomingMessage): Promise<{ call: Omit<StubCall, 'path'>; ok: boolean }> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  const contentType = req.headers['content-type'] ?? '';
  const fields: Record<string, string> = {};
  let fileName: string | undefined;
  let fileSize = 0;
  try {
    const form = await new Request('http://stub/', {
      method: 'POST',
      headers: { 'content-type': contentType },
      body: Buffer.concat(chunks),
    }).formData();
    for (const [k, v] of form) {
      if (typeof v === 'string') fields[k] = v;
      else if (k === 'file') {
        fileName = v.name;
        fileSize = v.size;
      }
    }
  } catch {
    return { call: { contentType, fields, fileSize }, ok: false };
  }
  return { call: { contentType, fields, ...(fileName ? { fileName } : {}), fileSize }, ok: fileSize > 0 };
}

export async function startSpeechStub(): Promise<SpeechStub> {
  const sockets = new Set<import('node:net').Socket>();
  const stub: SpeechStub = { url: '', calls: [], mode: 'ok', delayMs: 0, close: async () => {} };
  const server: Server = createServer(async (req, res) => {
    const { call, ok } = await readForm(req);
    stub.calls.push({ path: req.url ?? '', ...call });
    if (stub.mode === 'hang') return;
    if (stub.delayMs > 0) await new Promise((r) => setTimeout(r, stub.delayMs));
    const send = (status: number, body: string) => {
      res.writeHead(status, { 'content-type': 'application/json' }).end(body);
    };
    if (!ok) return send(400, JSON.stringify({ error: { message: 'file is required' } }));
    if (stub.mode === 'error') return send(500, JSON.stringify({ error: { message: 'model not loaded' } }));
    if (stub.mode === 'not-json') return send(200, '<html>oops</html>');
    if (stub.mode === 'redirect' && req.url !== '/elsewhere')
      return void res.writeHead(307, { location: `${stub.url}/elsewhere` }).end();
    if (stub.mode === 'huge') return send(200, JSON.stringify({ text: 'x'.repeat(9 * 1024 * 1024) }));
    if (req.url === '/v1/audio/diarization')
      return send(
        200,
        JSON.stringify({
          task: 'diarize',
          duration: 4.6,
          num_speakers: 2,
          segments: [
            { id: 0, speaker: 'SPEAKER_00', label: '0', start: 0, end: 1.55 },
            { id: 1, speaker: 'SPEAKER_01', label: '1', start: 1.55, end: 4.6 },
          ],
        }),
      );
    if (req.url !== '/v1/audio/transcriptions') return send(404, '{"error":"not found"}');
    const segments = STUB_SEGMENTS.map((s, id) => ({ id, ...s, avg_logprob: -0.2, no_speech_prob: 0.01 }));
    send(
      200,
      JSON.stringify({
        task: 'transcribe',
        language: 'english',
        duration: 4.6,
        text: segments.map((s) => s.text).join(''),
        segments,
      }),
    );
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  stub.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  stub.close = async () => {
    for (const s of sockets) s.destroy();
    await new Promise((r) => server.close(r));
  };
  return stub;
}
