import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator } from '../embed/startSimulator.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'psim-recorder-error-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe("the recorder's own answers", () => {
  it('an upstream that is down: 502 with X-Request-Id, JSON on the API, S3 XML on storage', async () => {
    const rec = await startSimulator({
      config: { record: join(dir, 'down'), upstream: 'http://127.0.0.1:1' },
    });
    try {
      const api = await fetch(`${rec.url}/developer/api/oauth/partner/access-token`, { method: 'POST' });
      expect(api.status).toBe(502);
      expect(api.headers.get('x-request-id')).toMatch(/^sim-/);
      expect(await api.json()).toMatchObject({ detail: 'UPSTREAM_UNREACHABLE' });

      const put = await fetch(`${rec.url}/storage/uploads/file_1?partNumber=1`, {
        method: 'PUT',
        body: 'bytes',
        headers: { 'x-request-id': 'client-trace-42' },
      });
      expect(put.status).toBe(502);
      expect(put.headers.get('content-type')).toBe('application/xml');
      // The client's own safe id is kept, and is the document's RequestId.
      expect(put.headers.get('x-request-id')).toBe('client-trace-42');
      const xml = await put.text();
      expect(xml).toMatch(/^<\?xml/);
      expect(xml).toContain('<Code>UPSTREAM_UNREACHABLE</Code>');
      expect(xml).toContain('<Resource>/storage/uploads/file_1</Resource>');
      expect(xml).toContain('<RequestId>client-trace-42</RequestId>');
    } finally {
      await rec.stop();
    }
  });

  it("a relayed answer keeps the upstream's X-Request-Id, and gets one when it had none", async () => {
    const up = createServer((req, res) => {
      const own = req.url?.includes('own') ? { 'x-request-id': 'upstream-7' } : {};
      res.writeHead(200, { 'content-type': 'application/json', ...own });
      res.end('{}');
    });
    await new Promise<void>((r) => up.listen(0, '127.0.0.1', r));
    const port = (up.address() as { port: number }).port;
    const rec = await startSimulator({
      config: { record: join(dir, 'ids'), upstream: `http://127.0.0.1:${port}` },
    });
    try {
      const bare = await fetch(`${rec.url}/developer/api/open/partner/x`);
      expect(bare.headers.get('x-request-id')).toMatch(/^sim-/);
      const own = await fetch(`${rec.url}/developer/api/open/partner/own`);
      expect(own.headers.get('x-request-id')).toBe('upstream-7');
    } finally {
      await rec.stop();
      up.close();
    }
  });
});

describe('a --record folder that cannot hold a recording', () => {
  it('is refused at start naming the flag, the path and the reason', async () => {
    const file = join(dir, 'a-file');
    await writeFile(file, 'x');
    const upstream = 'http://127.0.0.1:1';
    await expect(startSimulator({ config: { record: join(file, 'sub'), upstream } })).rejects.toMatchObject({
      name: 'ConfigError',
      message: `--record ${join(file, 'sub')}: cannot write a recording in this folder: a file stands where a folder of the path should be (ENOTDIR)`,
    });
    await expect(startSimulator({ config: { record: file, upstream } })).rejects.toMatchObject({
      name: 'ConfigError',
      message: expect.stringMatching(
        /^--record .*a-file: cannot write a recording in this folder: .*\((EEXIST|ENOTDIR)\)$/,
      ),
    });
  });
});
