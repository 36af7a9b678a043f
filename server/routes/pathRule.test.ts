import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { completeUpload, md5hex, putPart, startUpload } from '../client/steps.js';
import { uploadBytes } from '../client/upload.js';
import { basicAuth, DEMO_US, http, userToken } from '../testing/http.js';
import { startTestServer, type TestServer } from '../testing/testServer.js';

// One path rule everywhere (docs/architecture.md "Paths"): case-sensitive as the live service,
// a presigned URL's path exactly as signed (issue 20, items 6 and 7).

let sim: TestServer;
let token: string;
beforeAll(async () => {
  sim = await startTestServer({ chunkSize: 1024 });
  token = (await userToken(sim.api, DEMO_US)).user;
});
afterAll(() => sim.stop());

const s3Code = (xml: string): string | undefined => /<Code>([^<]+)<\/Code>/.exec(xml)?.[1];
// biome-ignore lint/suspicious/noExplicitAny: journal entries are read as JSON
const journal = async (q = ''): Promise<any[]> => (await http('GET', `${sim.admin}/requests${q}`)).body;

/** The same URL with its path changed by `f` (query, signature included, kept as it was). */
const withPath = (url: string, f: (path: string) => string): string => {
  const u = new URL(url);
  return `${u.origin}${f(u.pathname)}${u.search}`;
};

describe('a presigned URL is good only for the path it was signed for', () => {
  it('a part PUT with another case or a trailing slash is 403 SignatureDoesNotMatch, and nothing is stored', async () => {
    const bytes = Buffer.alloc(10, 3);
    const s = await startUpload(sim.api, token, 10);
    const url = s.Parts[0]!.PresignedUrl;
    for (const changed of [
      withPath(url, (p) => p.replace('/uploads/', '/UPLOADS/')),
      withPath(url, (p) => p.replace('/storage/', '/STORAGE/')),
      withPath(url, (p) => p.replace('/storage/', '/Storage/')),
      withPath(url, (p) => `${p}/`),
      withPath(url, (p) => p.replace(s.FileId, s.FileId.toUpperCase())),
    ]) {
      const r = await putPart(changed, bytes);
      expect([r.status, s3Code(r.text)], changed).toEqual([403, 'SignatureDoesNotMatch']);
      expect(r.headers.get('content-type')).toMatch(/application\/xml/);
    }
    // Nothing was stored: completing with the part's ETag finds no part.
    const etag = `"${md5hex(bytes)}"`;
    const ids = { file_id: s.FileId, upload_id: s.UploadId, part_list: [{ PartNumber: 1, ETag: etag }] };
    expect((await completeUpload(sim.api, token, ids)).body.detail).toBe('InvalidPart');
    // Each refusal is journaled on the storage host, the prefix's case notwithstanding.
    const refused = (await journal('?status=403')).filter((e) => e.method === 'PUT');
    expect(refused).toHaveLength(5);
    expect(refused.every((e) => e.surface === 'storage')).toBe(true);
    // The URL as signed still works.
    expect((await putPart(url, bytes)).status).toBe(200);
    expect((await completeUpload(sim.api, token, ids)).status).toBe(200);
  });

  it('a download with another case or a trailing slash is 403 too; unsigned, an unknown key', async () => {
    const file = await uploadBytes(sim.api, token, Buffer.alloc(10, 4), 'mp3');
    const url = file.DownloadUrl!;
    expect((await http('GET', url)).status).toBe(200);
    for (const changed of [
      withPath(url, (p) => p.replace('/files/', '/FILES/')),
      withPath(url, (p) => p.replace('/storage/', '/STORAGE/')),
      withPath(url, (p) => `${p}/`),
    ]) {
      const r = await http('GET', changed);
      expect([r.status, s3Code(r.text)], changed).toEqual([403, 'SignatureDoesNotMatch']);
    }
    const unsigned = await http('GET', `${sim.url}/STORAGE/files/${file.FileId}`);
    expect([unsigned.status, s3Code(unsigned.text)]).toEqual([404, 'NoSuchKey']);
  });
});

describe('paths are case-sensitive on every surface', () => {
  it('a partner API or control API path in another case is an unknown path: 404, no token, no state', async () => {
    const before = (await journal()).length;
    for (const path of ['/DEVELOPER/API', '/Developer/api', '/developer/API']) {
      const r = await http('POST', `${sim.url}${path}/oauth/partner/access-token`, {
        headers: basicAuth(DEMO_US.client_id, DEMO_US.secret_key),
        form: {},
      });
      expect([r.status, r.body.detail], path).toEqual([404, 'NOT_FOUND']);
    }
    const right = await http('POST', `${sim.api}/OAuth/partner/access-token`, {
      headers: basicAuth(DEMO_US.client_id, DEMO_US.secret_key),
      form: {},
    });
    expect(right.status).toBe(404);
    expect((await http('GET', `${sim.url}/__ADMIN/health`)).status).toBe(404);
    // Under the API's own prefix it is the API's unknown path, journaled as such; under none,
    // it belongs to no surface and is not journaled (as any unknown path).
    const after = await journal();
    expect(after.length - before).toBe(1);
    expect(after[0]).toMatchObject({ status: 404, operation: null, surface: 'api' });
  });
});
