import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DEMO_US, exchangeToken, http } from '../testing/http.js';
import { startTestServer, type TestServer } from '../testing/testServer.js';

// A fault rule either answers exactly as written or is refused at creation (422 naming the
// field): never a rule that breaks the answer later (a 1xx status, a header Node cannot send).

let sim: TestServer;
beforeAll(async () => {
  sim = await startTestServer();
});
afterAll(() => sim.stop());
beforeEach(async () => {
  await http('DELETE', `${sim.admin}/faults`);
});

const create = (json: Record<string, unknown>) => http('POST', `${sim.admin}/faults`, { json });
const rule = (extra: Record<string, unknown>) => ({ operation: 'getPartnerToken', ...extra });

describe('createFault refuses what would break the answer', () => {
  it.each([
    [{ status: 100 }, ['body', 'status']],
    [{ status: 199 }, ['body', 'status']],
    [{ status: 600 }, ['body', 'status']],
    [{ status: 503, headers: { 'Bad Name': 'x' } }, ['body', 'headers', 'Bad Name']],
    [{ status: 503, headers: { 'X-Ok:': 'x' } }, ['body', 'headers', 'X-Ok:']],
    [{ status: 503, headers: { '': 'x' } }, ['body', 'headers', '']],
    [{ status: 503, headers: { 'X-Über': 'x' } }, ['body', 'headers', 'X-Über']],
    [{ status: 503, headers: { 'X-Split': 'a\r\nSet-Cookie: b' } }, ['body', 'headers', 'X-Split']],
    [{ status: 503, headers: { 'X-Nl': 'a\nb' } }, ['body', 'headers', 'X-Nl']],
    [{ status: 503, headers: { 'X-Nul': 'a\u0000b' } }, ['body', 'headers', 'X-Nul']],
    [{ status: 503, headers: { 'X-Del': 'a\u007fb' } }, ['body', 'headers', 'X-Del']],
    [{ status: 503, headers: { 'X-Emoji': 'a😀' } }, ['body', 'headers', 'X-Emoji']],
    [{ status: 503, headers: { 'X-Latin': 'café' } }, ['body', 'headers', 'X-Latin']],
    [{ status: 503, headers: { 'X-Num': 5 } }, ['body', 'headers', 'X-Num']],
    [{ status: 200, headers: { 'Content-Length': '5' } }, ['body', 'headers', 'Content-Length']],
    [{ status: 200, headers: { 'transfer-encoding': 'chunked' } }, ['body', 'headers', 'transfer-encoding']],
    [{ status: 503, headers: { Connection: 'close' } }, ['body', 'headers', 'Connection']],
  ])('%j → 422 at %j', async (extra, loc) => {
    const r = await create(rule(extra));
    expect(r.status, r.text).toBe(422);
    expect(r.body.detail.map((d: { loc: unknown[] }) => d.loc)).toContainEqual(loc);
    expect((await http('GET', `${sim.admin}/faults`)).body).toEqual([]);
  });

  it('accepts every token character in a name and printable ASCII with tabs in a value, and sends them', async () => {
    const name = "X-a!#$%&'*+.^_`|~9";
    const r = await create(
      rule({ status: 200, headers: { [name]: 'tab\there, "quoted" ~ok~' }, body: { ok: true } }),
    );
    expect(r.status, r.text).toBe(201);
    const answer = await exchangeToken(sim.api, DEMO_US);
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ ok: true });
    expect(answer.headers.get(name)).toBe('tab\there, "quoted" ~ok~');
  });
});

describe('X-Sim-Fault status range', () => {
  it.each(['status=100', 'status=199', 'status=600'])('refuses %s with 422 naming the header', async (v) => {
    const r = await exchangeToken(sim.api, DEMO_US, { 'X-Sim-Fault': v });
    expect(r.status).toBe(422);
    expect(r.body.detail[0]).toMatchObject({ loc: ['header', 'x-sim-fault'] });
  });

  it('still injects 200–599', async () => {
    const r = await exchangeToken(sim.api, DEMO_US, { 'X-Sim-Fault': 'status=200' });
    expect(r.status).toBe(200);
  });
});

describe('createFault input', () => {
  it.each([
    [{ operation: 'noSuchOp', status: 500 }, 'operation'],
    [{ operation: 'getPartnerToken' }, 'status'],
    [{ operation: 'getPartnerToken', action: 'wrong_etag' }, 'action'],
    [{ operation: 'getPartnerToken', action: 'reset', status: 500 }, 'status'],
    [{ operation: 'getPartnerToken', transcription_outcome: 'FAILURE' }, 'transcription_outcome'],
    [{ operation: 'getPartnerToken', body: { a: 1 } }, 'body'],
    [{ operation: 'getPartnerToken', action: 'malformed', body: { a: 1 } }, 'body'],
    [{ operation: 'uploadPart', action: 'wrong_etag', status: 500 }, 'status'],
    [{ operation: 'getPartnerToken', status: 500, probability: 2 }, 'probability'],
    [{ operation: 'getPartnerToken', status: 500, match: { colour: 'red' } }, 'match'],
  ])('refuses %j with 422 naming %s', async (json, field) => {
    const r = await http('POST', `${sim.admin}/faults`, { json });
    expect(r.status).toBe(422);
    expect(r.body.detail.map((d: { loc: string[] }) => d.loc[1])).toContain(field);
  });
});
