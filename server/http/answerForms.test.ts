import { connect } from 'node:net';
import express from 'express';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testConfig } from '../config.js';
import { SimError } from '../core/errors.js';
import { adminSpec, apiSpec } from '../spec/openapi.js';
import { validatorsFor } from '../spec/validators.js';
import { hugeJsonBodies } from '../testing/hostileBodies.js';
import { bearer, DEMO_US, exchangeToken, http, userToken } from '../testing/http.js';
import { startTestServer, type TestServer } from '../testing/testServer.js';
import { errorHandler } from './errorHandler.js';
import { simLocals } from './types.js';

// Regression tests for the classes of bugs the fuzzer (server/spec/fuzz.test.ts) found: each
// names the input that used to get an HTML page, a stack trace, a 5xx or an undeclared answer.

let sim: TestServer;
beforeAll(async () => {
  sim = await startTestServer();
});
afterAll(() => sim.stop());
const port0 = () => Number(new URL(sim.url).port);

const [deep5000, deep100000, keys20000, key1MB] = hugeJsonBodies();

/** Raw bytes over a socket: what Node's own parser refuses never reaches fetch's rules. */
function rawExchange(port: number, bytes: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.end(bytes));
    let text = '';
    socket.on('data', (c) => {
      text += c.toString('latin1');
    });
    socket.on('close', () => resolve(text));
    socket.on('error', reject);
  });
}

describe('hostile JSON bodies get a small 4xx JSON answer', () => {
  it.each([
    ['nested 5,000 deep', deep5000],
    ['nested 100,000 deep', deep100000],
    ['20,000 keys', keys20000],
    ['1 MB of key text', key1MB],
  ])('{"user_id": <%s>} to createUserToken: a declared 422, its echo bounded', async (_name, hostile) => {
    const p = await exchangeToken(sim.api, DEMO_US);
    const r = await http('POST', `${sim.api}/open/partner/users/access-token`, {
      raw: `{"user_id":${hostile}}`,
      headers: { ...bearer(p.body.access_token), 'content-type': 'application/json' },
    });
    expect(r.status).toBe(422);
    expect(r.body.detail[0].loc.slice(0, 2)).toEqual(['body', 'user_id']);
    expect(r.text.length).toBeLessThan(10_000);
    const op = apiSpec().get('createUserToken');
    expect(validatorsFor(apiSpec()).validateResponse(op, 422, 'application/json', r.body)).toEqual([]);
  });

  it('20,000 unknown keys to setClock (additionalProperties: false): at most 50 issues, clock untouched', async () => {
    const before = (await http('GET', `${sim.admin}/clock`)).body;
    const r = await http('POST', `${sim.admin}/clock`, {
      raw: keys20000,
      headers: { 'content-type': 'application/json' },
    });
    expect(r.status).toBe(422);
    expect(r.body.detail.length).toBeLessThanOrEqual(50);
    expect((await http('GET', `${sim.admin}/clock`)).body.offset_ms).toBe(before.offset_ms);
  });

  it('a body nested 100,000 deep to createPartnerApp: no crash, a declared answer', async () => {
    const r = await http('POST', `${sim.admin}/apps`, {
      raw: deep100000,
      headers: { 'content-type': 'application/json' },
    });
    const op = adminSpec().get('createPartnerApp');
    expect(r.status).toBeLessThan(500);
    expect(validatorsFor(adminSpec()).validateResponse(op, r.status, 'application/json', r.body)).toEqual([]);
  });
});

describe('numbers JSON cannot hold are refused, not stored as null', () => {
  it('createFault {"times": 1e400} is a 422 naming body.times', async () => {
    const r = await http('POST', `${sim.admin}/faults`, {
      raw: '{"operation":"getPartnerToken","status":503,"times":1e400}',
      headers: { 'content-type': 'application/json' },
    });
    expect(r.status).toBe(422);
    expect(r.body.detail).toEqual([
      { loc: ['body', 'times'], msg: 'Input should be a finite number', type: 'finite_number' },
    ]);
    expect((await http('GET', `${sim.admin}/faults`)).body).toEqual([]);
  });

  it('generatePresignedUrls {"filesize": -1e400} is a 422 naming body.filesize', async () => {
    const { user } = await userToken(sim.api, DEMO_US);
    const r = await http('POST', `${sim.api}/open/partner/files/upload/generate-presigned-urls`, {
      raw: '{"filesize":-1e400,"filetype":"mp3"}',
      headers: { ...bearer(user), 'content-type': 'application/json' },
    });
    expect(r.status).toBe(422);
    expect(r.body.detail[0].loc).toEqual(['body', 'filesize']);
  });

  it('listRequests ?limit=1e400 (coerced to Infinity, an "integer" to ajv) is a 422 naming query.limit', async () => {
    const r = await http('GET', `${sim.admin}/requests?limit=1e400`);
    expect(r.status).toBe(422);
    expect(r.body.detail.map((d: { loc: unknown }) => d.loc)).toContainEqual(['query', 'limit']);
  });
});

describe('values nested too deep to serialise again are never stored', () => {
  it('createFault with "body" nested 5,000 deep: 422 too_deep, nothing stored, the API unharmed', async () => {
    const r = await http('POST', `${sim.admin}/faults`, {
      raw: `{"operation":"getPartnerToken","status":503,"body":${deep5000}}`,
      headers: { 'content-type': 'application/json' },
    });
    expect(r.status).toBe(422);
    expect(r.body.detail[0]).toMatchObject({ type: 'too_deep', ctx: { max_depth: 64 } });
    expect(r.body.detail[0].loc.slice(0, 2)).toEqual(['body', 'body']);
    expect((await http('GET', `${sim.admin}/faults`)).body).toEqual([]);
    expect((await exchangeToken(sim.api, DEMO_US)).status).toBe(200);
  });
});

describe('bodies where no body is declared are ignored', () => {
  it('GET /__admin/clock with a malformed 2 MB JSON body answers 200', async () => {
    const body = `{${'x'.repeat(2_000_000)}`;
    const text = await rawExchange(
      port0(),
      `GET /__admin/clock HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`,
    );
    expect(text).toMatch(/^HTTP\/1\.1 200 /);
  });
});

describe('requests Node refuses itself (clientError) get the documented form', () => {
  const huge = `x-big: ${'a'.repeat(20_000)}\r\n`;

  it('headers over 16 KB on the partner API: 431 JSON, Connection: close', async () => {
    const text = await rawExchange(
      port0(),
      `GET /developer/api/open/partner/sdk/binding HTTP/1.1\r\nHost: x\r\n${huge}\r\n`,
    );
    expect(text).toMatch(/^HTTP\/1\.1 431 /);
    expect(text).toMatch(/Connection: close/i);
    expect(text).toMatch(/Content-Type: application\/json/i);
    expect(JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4))).toMatchObject({
      detail: 'HEADERS_TOO_LARGE',
    });
  });

  it('headers over 16 KB on the storage host: 431 S3 XML', async () => {
    const text = await rawExchange(port0(), `GET /storage/files/abc HTTP/1.1\r\nHost: x\r\n${huge}\r\n`);
    expect(text).toMatch(/^HTTP\/1\.1 431 /);
    expect(text).toContain('<Code>RequestHeaderSectionTooLarge</Code>');
  });

  it('a garbage request line: 400 JSON, and the server keeps serving', async () => {
    const text = await rawExchange(port0(), 'NOT A REQUEST\r\n\r\n');
    expect(text).toMatch(/^HTTP\/1\.1 400 /);
    expect(text).toContain('"detail":"BAD_REQUEST"');
    expect((await http('GET', `${sim.admin}/health`)).status).toBe(200);
  });
});

describe('the storage host speaks only declared S3 codes', () => {
  it('OPTIONS /storage/uploads/%zz (malformed percent-encoding) is a 400 InvalidURI XML', async () => {
    const text = await rawExchange(
      port0(),
      'OPTIONS /storage/uploads/%zz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n',
    );
    expect(text).toMatch(/^HTTP\/1\.1 400 /);
    expect(text).toContain('<Code>InvalidURI</Code>');
  });

  it('an unknown storage path is a 404 NoSuchKey', async () => {
    const r = await http('GET', `${sim.url}/storage/nowhere/at/all`);
    expect(r.status).toBe(404);
    expect(r.text).toContain('<Code>NoSuchKey</Code>');
    const codes = (apiSpec().doc.components?.schemas?.S3Error as { properties: { Code: { enum: string[] } } })
      .properties.Code.enum;
    expect(codes).toContain('NoSuchKey');
  });
});
describe('the last resort: an error that cannot be answered normally', () => {
  // Errors whose answer throws inside the error handler, where Express would otherwise send
  // its HTML page with a stack trace: an echoed input JSON cannot serialise (a BigInt), a
  // header value Node refuses to send.
  const unserialisable = () => {
    throw SimError.validation([{ loc: ['body'], msg: 'x', type: 'x', input: 10n }]);
  };
  const unsendableHeader = () => {
    throw new SimError(400, 'InvalidArgument', 'x', { headers: { 'x-bad': 'a\nb' } });
  };
  const appWith = (surface: 'api' | 'storage') => {
    const app = express();
    app.use((_req, res, next) => {
      simLocals(res).surface = surface;
      next();
    });
    app.get('/boom', unserialisable);
    app.get('/header', unsendableHeader);
    app.use(errorHandler(testConfig(), pino({ level: 'silent' }), () => undefined));
    return app;
  };

  it.each([
    ['api', '/boom', /json/, '"detail":"INTERNAL_ERROR"'],
    ['api', '/header', /json/, '"detail":"INTERNAL_ERROR"'],
    ['storage', '/header', /xml/, '<Code>InternalError</Code>'],
  ] as const)('on the %s surface, %s: a fixed 500 in its own format, no HTML, no stack', async (surface, path, type, marker) => {
    const server = appWith(surface).listen(0, '127.0.0.1');
    await new Promise((r) => server.once('listening', r));
    try {
      const { port } = server.address() as { port: number };
      const r = await http('GET', `http://127.0.0.1:${port}${path}`);
      expect(r.status).toBe(500);
      expect(r.headers.get('content-type')).toMatch(type);
      expect(r.text).toContain(marker);
      expect(r.text).not.toMatch(/<html|\n\s+at /i);
    } finally {
      server.close();
    }
  });
});
