import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Agent, type Dispatcher, getGlobalDispatcher, ProxyAgent, setGlobalDispatcher } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pollTranscription } from '../client/poll.js';
import { submitTranscription } from '../client/transcription.js';
import { uploadBytes } from '../client/upload.js';
import { fromRoot } from '../core/root.js';
import { AUDIO_FIXTURES, audioPath, readAudio } from '../testing/audioFixtures.js';
import { DEMO_US, userToken } from '../testing/http.js';
import { execFileTracked } from '../testing/spawnTracked.js';
import { startTestServer, type TestServer, tempDataDir } from '../testing/testServer.js';

// Partner clients that know only the live hosts and insist on https and S3 URLs, unchanged,
// through the simulator's proxy with its CA trusted: Debian's Python (standard library),
// curl, and Node's fetch with a proxy agent. The whole flow, loopback only.
const run = execFileTracked;
const STORAGE = 'partner-sim.s3.us-east-1.amazonaws.com';
const S3_KEY = /^https:\/\/partner-sim\.s3\.us-east-1\.amazonaws\.com\/(uploads|files)\/file_[0-9a-f]+$/;
const mp3 = AUDIO_FIXTURES.mp3;

let sim: TestServer;
let tmp: { dir: string; cleanup: () => Promise<void> };
let ca: string;
let proxy: string;
beforeAll(async () => {
  tmp = await tempDataDir();
  // 8 KiB parts: the fixture goes up in three; transcriptions finish at once.
  sim = await startTestServer({
    https: true,
    caDir: join(tmp.dir, 'ca'),
    storageHost: STORAGE,
    chunkSize: 8 * 1024,
    transcriptionDelay: 0,
  });
  ca = sim.https!.caCertPath;
  proxy = sim.https!.proxy;
}, 60_000);
afterAll(async () => {
  await sim.stop();
  await tmp.cleanup();
});

const regionOf = (jwt: string): string =>
  JSON.parse(Buffer.from(jwt.split('.')[1]!, 'base64url').toString()).region;

describe('Python, standard library only, two environment variables', () => {
  // Debian's interpreter where there is one (CI installs it), else whichever is on PATH.
  const python = existsSync('/usr/bin/python3') ? '/usr/bin/python3' : 'python3';
  it.each([
    'us',
    'jp',
  ])('runs tokens → binding → S3-shaped upload → transcription on the %s host', async (region) => {
    const { stdout } = await run(
      python,
      [fromRoot('server/net/clients/partner_flow.py'), audioPath(mp3), region],
      {
        // Nothing of this process's environment: the script gets the two variables and PATH.
        env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HTTPS_PROXY: proxy, SSL_CERT_FILE: ca },
        timeout: 60_000,
      },
    );
    const r = JSON.parse(stdout.trim().split('\n').at(-1)!);
    expect(regionOf(r.user_token)).toBe(region);
    expect(r).toMatchObject({ is_bind: true, parts: 3, download_status: 200, download_md5_ok: true });
    expect(r.part_url).toMatch(S3_KEY);
    expect(r.download_url).toMatch(S3_KEY);
    expect(r.transcription).toBe('SUCCESS');
    expect(Math.abs(r.duration - mp3.duration)).toBeLessThan(0.1);
  }, 90_000);
});

describe('curl through the proxy with --cacert', () => {
  let n = 0;
  /** One request: status, response headers (all blocks, the CONNECT answer included) and JSON body. */
  async function curl(
    method: string,
    url: string,
    opts: { headers?: string[]; json?: unknown; file?: string } = {},
  ) {
    const id = ++n;
    const hdr = join(tmp.dir, `h${id}`);
    const out = join(tmp.dir, `b${id}`);
    const args = [
      '-sS',
      '--proxy',
      proxy,
      '--cacert',
      ca,
      '-X',
      method,
      '-D',
      hdr,
      '-o',
      out,
      '-w',
      '%{http_code}',
    ];
    for (const h of opts.headers ?? []) args.push('-H', h);
    if (opts.json !== undefined)
      args.push('-H', 'Content-Type: application/json', '--data-binary', JSON.stringify(opts.json));
    if (opts.file) args.push('--data-binary', `@${opts.file}`);
    const { stdout } = await run('curl', [...args, url]);
    const text = await readFile(out, 'utf8').catch(() => '');
    return {
      status: Number(stdout),
      headers: await readFile(hdr, 'utf8'),
      body: text.startsWith('{') ? JSON.parse(text) : text,
    };
  }

  it('runs the whole flow against https://platform-us.plaud.ai with S3-shaped part URLs', async () => {
    const api = 'https://platform-us.plaud.ai/developer/api';
    const basic = Buffer.from(`${DEMO_US.client_id}:${DEMO_US.secret_key}`).toString('base64');
    const partner = await curl('POST', `${api}/oauth/partner/access-token`, {
      headers: [`Authorization: Basic ${basic}`],
    });
    expect(partner.status).toBe(200);
    const user = await curl('POST', `${api}/open/partner/users/access-token`, {
      headers: [`Authorization: Bearer ${partner.body.access_token}`],
      json: { user_id: 'curl-flow-user' },
    });
    const auth = [`Authorization: Bearer ${user.body.access_token}`];
    const device = { type: 'notepro', sn: '881000000778' };
    expect(
      (await curl('POST', `${api}/open/partner/sdk/sn-sign`, { headers: auth, json: device })).status,
    ).toBe(200);
    expect((await curl('POST', `${api}/open/partner/sdk/bind`, { headers: auth, json: device })).status).toBe(
      200,
    );
    const binding = await curl('GET', `${api}/open/partner/sdk/binding?type=notepro&sn=881000000778`, {
      headers: auth,
    });
    expect(binding.body.is_bind).toBe(true);

    const bytes = await readAudio(mp3);
    const session = await curl('POST', `${api}/open/partner/files/upload/generate-presigned-urls`, {
      headers: auth,
      json: { filesize: bytes.length, filetype: 'mp3' },
    });
    const part_list = [];
    for (const p of session.body.Parts as { PartNumber: number; PresignedUrl: string }[]) {
      expect(p.PresignedUrl.split('?')[0]).toMatch(S3_KEY);
      const file = join(tmp.dir, `part${p.PartNumber}`);
      const from = (p.PartNumber - 1) * session.body.ChunkSize;
      await writeFile(file, bytes.subarray(from, from + session.body.ChunkSize));
      const put = await curl('PUT', p.PresignedUrl, { file });
      expect(put.status).toBe(200);
      part_list.push({ PartNumber: p.PartNumber, ETag: /^etag: *(.+?)\r?$/im.exec(put.headers)![1]! });
    }
    const done = await curl('POST', `${api}/open/partner/files/upload/complete-upload`, {
      headers: auth,
      json: { file_id: session.body.FileId, upload_id: session.body.UploadId, part_list, filetype: 'mp3' },
    });
    expect(done.status).toBe(200);
    // S3's answers for a bad signature come back through the proxy too, as XML.
    const forged = await curl(
      'GET',
      `${done.body.DownloadUrl.replace(/X-Amz-Signature=[0-9a-f]{4}/, 'X-Amz-Signature=0000')}`,
    );
    expect(forged.status).toBe(403);
    expect(forged.body).toContain('<Code>SignatureDoesNotMatch</Code>');

    const keys = [`X-Client-Id: ${DEMO_US.client_id}`, `X-Client-Api-Key: ${DEMO_US.api_key}`];
    const task = await curl('POST', `${api}/open/partner/ai/transcriptions/`, {
      headers: keys,
      json: { file_url: done.body.DownloadUrl },
    });
    expect(task.status).toBe(200);
    let got = task.body;
    for (let i = 0; i < 50 && got.status !== 'SUCCESS' && got.status !== 'FAILURE'; i++)
      got = (
        await curl('GET', `${api}/open/partner/ai/transcriptions/${task.body.transcription_id}`, {
          headers: keys,
        })
      ).body;
    expect(got.status).toBe('SUCCESS');
  }, 90_000);
});

describe("Node's fetch with a proxy agent", () => {
  let previous: Dispatcher;
  beforeAll(async () => {
    previous = getGlobalDispatcher();
    // undici's ProxyAgent as the global dispatcher: Node's own fetch then goes through it.
    setGlobalDispatcher(new ProxyAgent({ uri: proxy, requestTls: { ca: await readFile(ca, 'utf8') } }));
  });
  afterAll(() => setGlobalDispatcher(previous ?? new Agent()));

  it("the project's partner client runs the flow on the live JP host, unchanged", async () => {
    const api = 'https://platform-jp.plaud.ai/developer/api';
    const app = {
      client_id: 'demo-client-jp',
      secret_key: 'demo-secret-jp-0000',
      api_key: 'demo-api-key-jp-0000',
    };
    const { user } = await userToken(api, app, 'fetch-flow-user');
    expect(regionOf(user)).toBe('jp');
    const file = await uploadBytes(api, user, await readAudio(mp3), 'mp3');
    expect(file.DownloadUrl.split('?')[0]).toMatch(S3_KEY);
    const submitted = await submitTranscription(api, app, file.DownloadUrl);
    const { task } = await pollTranscription(api, app, submitted.transcription_id, { deadlineMs: 30_000 });
    expect(task.status).toBe('SUCCESS');
  }, 60_000);
});
