import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { banner } from '../cli.js';
import { parseConfig, testConfig } from '../config.js';
import { startSimulator } from '../embed/startSimulator.js';
import { operationOf } from './operationOf.js';
import { forwardOf, parseUpstream, rewriteAnswer } from './upstream.js';

describe('--record and --upstream', () => {
  it('go together: nothing is forwarded unless it is recorded', () => {
    expect(() => parseConfig({ upstream: 'live' })).toThrow(/--upstream needs --record/);
    expect(() => parseConfig({ record: 'rec' })).toThrow(/--record needs --upstream/);
    expect(() => parseConfig({ record: 'rec', upstream: 'ftp://x' })).toThrow(
      /live, live-us, live-jp, live-eu, live-sg or an http/,
    );
    expect(parseConfig({ record: 'rec', upstream: 'live-jp' }).upstream).toBe('live-jp');
  });

  it('--record-max-size and --record-body-limit take sizes, with defaults of 64 MiB and 1 MiB', () => {
    expect(parseConfig({})).toMatchObject({ recordMaxSize: 64 * 1024 ** 2, recordBodyLimit: 1024 ** 2 });
    const c = parseConfig({ 'record-max-size': '1GiB' }, { PARTNER_SIM_RECORD_BODY_LIMIT: '256KiB' });
    expect(c).toMatchObject({ recordMaxSize: 1024 ** 3, recordBodyLimit: 256 * 1024 });
    expect(() => parseConfig({ 'record-max-size': '64MB' })).toThrow(
      /--record-max-size.*"64MB".*such as '64MiB'/,
    );
    expect(() => parseConfig({ 'record-max-size': '1000' })).toThrow(/at least 64KiB/);
  });

  it('the banner says where traffic goes and where it is written', () => {
    const text = banner('http://127.0.0.1:4010', testConfig(), [], undefined, {
      file: '/tmp/r/partner-sim-x.har',
      upstream: 'https://platform-us.plaud.ai (live US)',
    });
    expect(text).toContain(
      'RECORDING: partner-API and storage requests are forwarded to https://platform-us.plaud.ai (live US)',
    );
    expect(text).toContain('/tmp/r/partner-sim-x.har');
    expect(banner('http://127.0.0.1:4010', testConfig(), [])).not.toContain('RECORDING');
  });
});

describe('upstreams', () => {
  it('live sends each region to its host; a URL keeps the simulator path', () => {
    const live = parseUpstream('live');
    expect(forwardOf(live, '/jp/developer/api/oauth/partner/access-token')?.url.href).toBe(
      'https://platform-jp.plaud.ai/developer/api/oauth/partner/access-token',
    );
    expect(forwardOf(parseUpstream('live-jp'), '/developer/api/x?a=1')?.url.href).toBe(
      'https://platform-jp.plaud.ai/developer/api/x?a=1',
    );
    const url = parseUpstream('http://127.0.0.1:9/');
    expect(forwardOf(url, '/storage/uploads/f?partNumber=1')?.url.href).toBe(
      'http://127.0.0.1:9/storage/uploads/f?partNumber=1',
    );
    expect(forwardOf(url, '/__admin/apps')).toBeUndefined();
    expect(forwardOf(url, '/docs')).toBeUndefined();
  });

  it('live storage URLs come back through the recorder, and only S3 hosts go out', () => {
    const live = parseUpstream('live');
    const text = rewriteAnswer(
      live,
      '{"u":"https://bkt.s3.us-west-2.amazonaws.com/k/1?X-Amz-Signature=a"}',
      'http://127.0.0.1:4010',
    );
    expect(text).toBe(
      '{"u":"http://127.0.0.1:4010/storage/~s3/bkt.s3.us-west-2.amazonaws.com/k/1?X-Amz-Signature=a"}',
    );
    expect(forwardOf(live, '/storage/~s3/bkt.s3.us-west-2.amazonaws.com/k/1?a=1')?.url.href).toBe(
      'https://bkt.s3.us-west-2.amazonaws.com/k/1?a=1',
    );
    expect(forwardOf(live, '/storage/~s3/evil.example.com/k')).toBeUndefined();
    expect(operationOf('PUT', '/storage/~s3/bkt.s3.amazonaws.com/k?partNumber=1')).toBe('uploadPart');
  });

  it('names the operation of a simulator path', () => {
    expect(operationOf('GET', '/jp/developer/api/open/partner/ai/transcriptions/task_exec_1')).toBe(
      'getTranscription',
    );
    expect(operationOf('POST', '/developer/api/open/partner/ai/transcriptions/')).toBe('createTranscription');
    expect(operationOf('PUT', '/storage/uploads/file_1')).toBe('uploadPart');
    expect(operationOf('GET', '/developer/api/nothing')).toBeUndefined();
  });
});

describe('a recorder whose upstream is down', () => {
  it('answers 502 naming it, records nothing, and keeps serving its own control API', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'psim-record-down-'));
    const rec = await startSimulator({ config: { record: dir, upstream: 'http://127.0.0.1:1' } });
    try {
      const res = await fetch(`${rec.url}/developer/api/oauth/partner/access-token`, { method: 'POST' });
      expect(res.status).toBe(502);
      expect(await res.json()).toMatchObject({ detail: 'UPSTREAM_UNREACHABLE' });
      expect((await fetch(`${rec.url}/__admin/health`)).status).toBe(200);
      const [name] = await readdir(dir);
      expect(JSON.parse(await readFile(join(dir, name!), 'utf8')).log.entries).toEqual([]);
    } finally {
      await rec.stop();
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('an upstream that compresses although asked not to', () => {
  it('is recorded, and passed on, decoded', async () => {
    const { createServer } = await import('node:http');
    const { gzipSync } = await import('node:zlib');
    let asked = '';
    const up = createServer((req, res) => {
      asked = String(req.headers['accept-encoding']);
      res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
      res.end(gzipSync(JSON.stringify({ access_token: 'opaque-token-123456789', token_type: 'bearer' })));
    });
    await new Promise<void>((r) => up.listen(0, '127.0.0.1', r));
    const dir = await mkdtemp(join(tmpdir(), 'psim-record-gzip-'));
    const port = (up.address() as { port: number }).port;
    const rec = await startSimulator({ config: { record: dir, upstream: `http://127.0.0.1:${port}` } });
    try {
      const res = await fetch(`${rec.url}/developer/api/oauth/partner/access-token`, { method: 'POST' });
      expect(res.headers.get('content-encoding')).toBeNull();
      expect(await res.json()).toMatchObject({ access_token: 'opaque-token-123456789' });
      expect(asked).toBe('identity');
      const [name] = await readdir(dir);
      const har = await readFile(join(dir, name!), 'utf8');
      expect(har).not.toContain('opaque-token-123456789');
      expect(JSON.parse(JSON.parse(har).log.entries[0].response.content.text)).toMatchObject({
        token_type: 'bearer',
      });
    } finally {
      await rec.stop();
      up.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
