import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminSpec, apiSpec, deviceSpec } from '../spec/openapi.js';
import { conformance, sendRaw } from '../testing/conformance.js';
import { bearer, http } from '../testing/http.js';
import { startTestServer, type TestServer } from '../testing/testServer.js';
import { allowedByPath } from './methodNotAllowed.js';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer({ adminToken: 'tok-405' });
});
afterAll(async () => {
  await s?.stop();
});

describe('a known path with a method it does not answer', () => {
  it('answers 405 with Allow on the partner API, as JSON, before any credential check', async () => {
    const r = await http('DELETE', `${s.api}/oauth/partner/access-token`);
    expect(r.status).toBe(405);
    expect(r.headers.get('allow')).toBe('POST');
    expect(r.body).toEqual({ detail: 'METHOD_NOT_ALLOWED', message: expect.stringContaining('POST') });
    const jp = await http('PUT', `${s.apiJp}/open/partner/ai/transcriptions/tx_123`);
    expect(jp.status).toBe(405);
    expect(jp.headers.get('allow')).toBe('GET, HEAD');
  });

  it('answers 405 with Allow on the storage host, as S3 XML', async () => {
    const r = await http('DELETE', `${s.url}/storage/files/file_x`);
    expect(r.status).toBe(405);
    expect(r.headers.get('allow')).toBe('GET, HEAD');
    expect(r.headers.get('content-type')).toMatch(/^application\/xml/);
    expect(r.text).toContain('<Code>MethodNotAllowed</Code>');
  });

  it('answers 405 on the control API once the admin token passed, 401 before', async () => {
    expect((await http('DELETE', `${s.admin}/clock`)).status).toBe(401);
    const r = await http('DELETE', `${s.admin}/clock`, { headers: bearer('tok-405') });
    expect(r.status).toBe(405);
    expect(r.headers.get('allow')).toBe('GET, HEAD, POST');
    expect(r.body.detail).toBe('METHOD_NOT_ALLOWED');
  });

  it('still answers 404 for unknown paths, and the right method still works', async () => {
    expect((await http('DELETE', `${s.api}/oauth/nope`)).status).toBe(404);
    expect((await http('GET', `${s.admin}/health`)).status).toBe(200);
    expect((await http('HEAD', `${s.api}/open/partner/ai/transcriptions/tx_1`)).status).not.toBe(405);
  });
});

describe('allowedByPath', () => {
  it('lists each path of the document once with every method it answers', () => {
    const allow = allowedByPath(apiSpec().operations.values());
    expect(allow.get('/oauth/partner/access-token')).toEqual(['POST']);
    expect(allow.get('/uploads/:file_id')).toEqual(['OPTIONS', 'PUT']);
    expect(allow.get('/files/:file_id')).toEqual(['GET', 'HEAD']);
  });
});

describe('operations whose path, with an empty parameter, lands on a path of other methods', () => {
  const probes = () =>
    [apiSpec(), adminSpec(), deviceSpec()].flatMap((spec) =>
      [...spec.operations.values()]
        .filter((op) => op.path.includes('{'))
        .map((op) => {
          const prefix = op.storage
            ? '/storage'
            : spec === apiSpec()
              ? '/developer/api'
              : spec === deviceSpec()
                ? '/__device'
                : '/__admin';
          return { spec, op, path: prefix + op.path.replace(/\{[^}]+\}/g, '') };
        }),
    );

  it('declare the 405 they answer (the fuzz test holds every answer to the document)', async () => {
    const answered405: string[] = [];
    const problems: string[] = [];
    for (const { spec, op, path } of probes()) {
      const res = await sendRaw(s.url, {
        method: op.method.toUpperCase(),
        path,
        headers: { authorization: 'Bearer tok-405' },
      });
      if (res.status !== 405) continue;
      answered405.push(op.id);
      problems.push(...conformance(spec, op, res).map((p) => `${op.method} ${path}: ${p.slice(0, 60)}`));
    }
    expect(problems).toEqual([]);
    // Not vacuous: e.g. GET …/transcriptions/ is the collection, which only takes POST.
    expect(answered405).toContain('getTranscription');
  });
});
