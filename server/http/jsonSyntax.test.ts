import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiSpec } from '../spec/openapi.js';
import { http } from '../testing/http.js';
import { startTestServer, type TestServer } from '../testing/testServer.js';
import { jsonDecodeIssue } from './jsonSyntax.js';

const issue = (body: string) => {
  try {
    JSON.parse(body);
  } catch (e) {
    return jsonDecodeIssue({ message: (e as Error).message, body });
  }
  throw new Error('valid JSON');
};

describe('jsonDecodeIssue', () => {
  it('says where: position, line, column and the text around it', () => {
    expect(issue('{"user_id": "abc" "x": 1}')).toEqual({
      loc: ['body', 18],
      msg: 'JSON decode error',
      type: 'json_invalid',
      input: {},
      ctx: {
        error: "Expected ',' or '}' after property value",
        position: 18,
        line: 1,
        column: 19,
        excerpt: '{"user_id": "abc" "x": 1}',
      },
    });
    // A message without a position (V8's "Unexpected token") and a body over several lines.
    const multi = issue('{\n  "a": 1,\n  "b": [1,]\n}');
    expect(multi.ctx).toMatchObject({ error: "Unexpected token ']'", position: 22, line: 3, column: 11 });
    expect(issue('{"user_id":').ctx).toMatchObject({ error: 'Unexpected end of JSON input', position: 11 });
  });

  it('keeps the excerpt short on a long body', () => {
    const body = `{"a": "${'x'.repeat(500)}" "b": 1}`;
    const { ctx } = issue(body);
    expect(ctx?.excerpt).toBe(body.slice(Number(ctx?.position) - 24, Number(ctx?.position) + 24));
  });
});

describe('a malformed JSON body', () => {
  let sim: TestServer;
  beforeAll(async () => {
    sim = await startTestServer();
  });
  afterAll(() => sim.stop());

  it('answers 422 in the live shape, naming where, on the partner and control APIs', async () => {
    const raw = '{"user_id": "demo-user-0001",}';
    for (const url of [`${sim.api}/open/partner/users/access-token`, `${sim.admin}/apps`]) {
      const r = await http('POST', url, { raw, headers: { 'content-type': 'application/json' } });
      expect(r.status, url).toBe(422);
      expect(r.body.detail, url).toEqual([
        {
          loc: ['body', 29],
          msg: 'JSON decode error',
          type: 'json_invalid',
          input: {},
          ctx: { error: expect.any(String), position: 29, line: 1, column: 30, excerpt: raw.slice(5) },
        },
      ]);
    }
  });

  it('is declared by openapi.yaml: ctx names error, position, line, column and excerpt', () => {
    const item = apiSpec().doc.components?.schemas?.ValidationErrorItem as {
      properties: Record<string, { description?: string }>;
    };
    for (const field of ['position', 'line', 'column', 'excerpt'])
      expect(item.properties.ctx?.description).toContain(`\`${field}\``);
  });
});
