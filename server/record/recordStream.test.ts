import { createHash } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import { createServer, type IncomingMessage, request, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SimulatorHandle, startSimulator } from '../embed/startSimulator.js';

/**
 * Record mode streams (issue 45): bodies pass through the recorder as they arrive, the file
 * keeps text only up to --record-body-limit (then its size and MD5), and a file past
 * --record-max-size is followed by a new one. The upstream is a bare server on 127.0.0.1 whose
 * handler each test sets, so a test can hold an exchange half way and look.
 */
const KiB = 1024;
let upstream: Server;
let handle: (req: IncomingMessage, res: ServerResponse) => void = (_req, res) => res.end();
let dir: string;
const started: SimulatorHandle[] = [];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'psim-record-stream-'));
  upstream = createServer((req, res) => handle(req, res));
  await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', r));
});

afterAll(async () => {
  await Promise.all(started.map((s) => s.stop()));
  upstream?.closeAllConnections();
  await new Promise((r) => upstream?.close(r));
  if (dir) await rm(dir, { recursive: true, force: true });
});

async function recorder(name: string, config: { recordBodyLimit?: number; recordMaxSize?: number } = {}) {
  const url = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
  const sim = await startSimulator({ config: { record: join(dir, name), upstream: url, ...config } });
  started.push(sim);
  return sim;
}

/** Every entry of every HAR file in `sub`, oldest file first; each file must parse. */
async function recorded(sub: string) {
  const names = (await readdir(join(dir, sub))).sort();
  const files = await Promise.all(names.map((n) => readFile(join(dir, sub, n), 'utf8')));
  // biome-ignore lint/suspicious/noExplicitAny: HAR entries are read field by field
  const entries = files.flatMap((f) => JSON.parse(f).log.entries as any[]);
  return { names, files, entries };
}

/** Whether `p` settles within `ms` (a recorder holding a body whole never lets it). */
const within = (p: Promise<unknown>, ms: number) =>
  Promise.race([p.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), ms))]);

function send(url: string, method: string, headers: Record<string, string>) {
  const req = request(url, { method, headers });
  const answer = new Promise<IncomingMessage>((resolve, reject) => {
    req.on('response', resolve);
    req.on('error', reject);
  });
  return { req, answer };
}

const body = (res: IncomingMessage) =>
  new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    res.on('data', (c: Buffer) => chunks.push(c));
    res.on('end', () => resolve(Buffer.concat(chunks)));
    res.on('error', reject);
  });

describe('serve --record streams', () => {
  it('sends a request body upstream before the client has finished sending it', async () => {
    const sim = await recorder('request');
    let firstBytes!: () => void;
    const upstreamSaw = new Promise<void>((r) => {
      firstBytes = r;
    });
    handle = (req, res) => {
      req.once('data', () => firstBytes());
      req.resume();
      req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}'));
    };
    const { req, answer } = send(`${sim.url}/storage/stream/1`, 'PUT', {
      'content-type': 'text/plain',
      'content-length': String(128 * KiB),
    });
    req.write(Buffer.alloc(64 * KiB, 'a'));
    expect(await within(upstreamSaw, 3000), 'the upstream got bytes of an unfinished body').toBe(true);
    req.end(Buffer.alloc(64 * KiB, 'b'));
    const res = await answer;
    expect(res.statusCode).toBe(200);
    expect((await body(res)).toString()).toBe('{"ok":true}');
  });

  it('passes an answer to the client before the upstream has finished it', async () => {
    const sim = await recorder('answer');
    let finish!: () => void;
    const finished = new Promise<void>((r) => {
      finish = r;
    });
    handle = (_req, res) => {
      res.writeHead(200, { 'content-type': 'audio/mpeg' });
      res.write(Buffer.alloc(32 * KiB, 1));
      finished.then(() => res.end(Buffer.alloc(32 * KiB, 2)));
    };
    const { req, answer } = send(`${sim.url}/storage/stream/2`, 'GET', {});
    req.end();
    const res = await answer;
    const firstChunk = new Promise((r) => res.once('data', r));
    expect(await within(firstChunk, 3000), 'the client got bytes of an unfinished answer').toBe(true);
    finish();
    const got = await body(res);
    expect(got.length).toBeGreaterThanOrEqual(32 * KiB);
    const [entry] = (await recorded('answer')).entries;
    expect(entry.response.content).toMatchObject({
      size: 64 * KiB,
      _md5: expect.stringMatching(/^[0-9a-f]{32}$/),
    });
  });

  it('keeps text over --record-body-limit as its size and MD5, both ways; smaller text whole', async () => {
    const sim = await recorder('limit', { recordBodyLimit: 16 * KiB });
    handle = (req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' });
      req.pipe(res); // an echo, streamed
    };
    const big = Buffer.from('a line of recorded text that nobody needs twice\n'.repeat(2000));
    const { req, answer } = send(`${sim.url}/storage/limit/1`, 'PUT', { 'content-type': 'text/plain' });
    req.end(big);
    const echoed = await body(await answer);
    expect(echoed.equals(big)).toBe(true);
    const small = send(`${sim.url}/storage/limit/2`, 'PUT', { 'content-type': 'text/plain' });
    small.req.end('short text');
    expect((await body(await small.answer)).toString()).toBe('short text');

    const { entries, files } = await recorded('limit');
    const md5 = createHash('md5').update(big).digest('hex');
    expect(entries[0].request.postData).toMatchObject({ text: '', _size: big.length, _md5: md5 });
    expect(entries[0].request.postData.comment).toBe(
      `text over the body limit not kept: ${big.length} bytes, MD5 ${md5}`,
    );
    expect(entries[0].response.content).toMatchObject({ size: big.length, _md5: md5 });
    expect(entries[0].response.content.text).toBeUndefined();
    expect(files.join('')).not.toContain('nobody needs twice');
    expect(entries[1].request.postData.text).toBe('short text');
    expect(entries[1].response.content.text).toBe('short text');
  });

  it('goes on in a new file once one would pass --record-max-size, each a whole HAR', async () => {
    const max = 64 * KiB;
    const sim = await recorder('rollover', { recordMaxSize: max });
    handle = (req, res) => {
      req.resume();
      req.on('end', () => res.writeHead(201, { 'content-type': 'application/json' }).end('{"stored":true}'));
    };
    for (let n = 0; n < 8; n++) {
      const { req, answer } = send(`${sim.url}/storage/roll/${n}`, 'PUT', { 'content-type': 'text/plain' });
      req.end(`${n}:${'x'.repeat(20 * KiB)}`);
      expect((await answer).statusCode).toBe(201);
    }
    const { names, entries } = await recorded('rollover');
    expect(names.length).toBeGreaterThanOrEqual(3);
    for (const n of names) expect((await stat(join(dir, 'rollover', n))).size).toBeLessThanOrEqual(max);
    // Every exchange once, in order, across the files.
    expect(entries.map((e) => e.request.postData.text.split(':')[0])).toEqual([
      '0',
      '1',
      '2',
      '3',
      '4',
      '5',
      '6',
      '7',
    ]);
  });
});
