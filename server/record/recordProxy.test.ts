import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, ProxyAgent, fetch as undiciFetch } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SimulatorHandle, startSimulator } from '../embed/startSimulator.js';

/**
 * Record mode behind `serve --https`: requests that reach the recorder through the proxy (a
 * live host, unchanged client code) or its HTTPS base URL are forwarded and recorded like
 * those of its plain base URL; storage URLs handed out come back through the proxy.
 */
let upstream: SimulatorHandle;
let recorder: SimulatorHandle;
let dir: string;
let proxy: ProxyAgent;
let direct: Agent;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'psim-record-tls-'));
  upstream = await startSimulator();
  recorder = await startSimulator({
    config: { https: true, caDir: join(dir, 'ca'), record: join(dir, 'rec'), upstream: upstream.url },
  });
  const ca = await readFile(recorder.https!.caCertPath, 'utf8');
  proxy = new ProxyAgent({ uri: recorder.https!.proxy, requestTls: { ca } });
  direct = new Agent({ connect: { ca } });
}, 60_000);

afterAll(async () => {
  await proxy?.close();
  await direct?.close();
  await recorder?.stop();
  await upstream?.stop();
  await rm(dir, { recursive: true, force: true });
});

const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`;

describe('serve --https --record', () => {
  it('records what comes through the proxy and the HTTPS base URL, storage included', async () => {
    const jp = 'https://platform-jp.plaud.ai/developer/api';
    const pt = await undiciFetch(`${jp}/oauth/partner/access-token`, {
      method: 'POST',
      headers: { authorization: basic('demo-client-jp', 'demo-secret-jp-0000') },
      dispatcher: proxy,
    });
    expect(pt.status).toBe(200);
    const partner = ((await pt.json()) as { access_token: string }).access_token;
    const ut = await undiciFetch(`${jp}/open/partner/users/access-token`, {
      method: 'POST',
      headers: { authorization: `Bearer ${partner}`, 'content-type': 'application/json' },
      body: JSON.stringify({ user_id: 'proxy-user-0001' }),
      dispatcher: proxy,
    });
    const user = ((await ut.json()) as { access_token: string }).access_token;
    const presign = await undiciFetch(`${jp}/open/partner/files/upload/generate-presigned-urls`, {
      method: 'POST',
      headers: { authorization: `Bearer ${user}`, 'content-type': 'application/json' },
      body: JSON.stringify({ filesize: 16, filetype: 'mp3' }),
      dispatcher: proxy,
    });
    const part = ((await presign.json()) as { Parts: { PresignedUrl: string }[] }).Parts[0]!.PresignedUrl;
    // Pointed back at the recorder, by the name the client used.
    expect(part.startsWith('https://platform-jp.plaud.ai/storage/')).toBe(true);
    const put = await undiciFetch(part, { method: 'PUT', body: Buffer.alloc(16, 7), dispatcher: proxy });
    expect(put.status).toBe(200);
    expect(put.headers.get('etag')).toMatch(/^"[0-9a-f]{32}"$/);

    const us = await undiciFetch(`${recorder.https!.url}/developer/api/oauth/partner/access-token`, {
      method: 'POST',
      headers: { authorization: basic('demo-client-us', 'demo-secret-us-0000') },
      dispatcher: direct,
    });
    expect(us.status).toBe(200);

    const [name] = await readdir(join(dir, 'rec'));
    const har = JSON.parse(await readFile(join(dir, 'rec', name!), 'utf8'));
    const seen = har.log.entries.map(
      (e: { _operation: string; _region: string; response: { status: number } }) =>
        `${e._operation} ${e._region} ${e.response.status}`,
    );
    expect(seen).toEqual([
      'getPartnerToken jp 200',
      'createUserToken jp 200',
      'generatePresignedUrls jp 200',
      'uploadPart jp 200',
      'getPartnerToken us 200',
    ]);
    expect(har.log._app).toBe('demo-client-jp');
    expect(har.log._region).toBe('jp');
    expect(JSON.stringify(har)).not.toContain(partner);
  }, 30_000);
});
