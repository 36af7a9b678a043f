import { describe, expect, it } from 'vitest';
import { adminSpec, apiSpec } from '../spec/openapi.js';
import { conformance, parseResponse } from './conformance.js';

const json = { 'content-type': 'application/json; charset=utf-8' };
const body = JSON.stringify({ detail: 'BAD_REQUEST', message: 'The request could not be parsed' });

// The gate of the fuzz test (server/spec/fuzz.test.ts): it must fail on any status the
// operation's document does not declare, and pass the same answer where it is declared.
describe('conformance', () => {
  it('reports a status the operation does not declare', () => {
    const op = adminSpec().get('getHealth');
    expect(conformance(adminSpec(), op, { status: 418, headers: json, text: body })).toEqual([
      `status 418 is not declared for getHealth: ${body}`,
    ]);
    expect(conformance(adminSpec(), op, { status: 409, headers: json, text: body })[0]).toMatch(
      /^status 409 is not declared for getHealth/,
    );
  });

  it('accepts the same answer where the status is declared (400, a transport answer)', () => {
    expect(
      conformance(adminSpec(), adminSpec().get('getHealth'), { status: 400, headers: json, text: body }),
    ).toEqual([]);
  });

  it('reports a 5xx even where it is declared, and a body that breaks the declared schema', () => {
    const op = apiSpec().get('getDeviceBinding');
    expect(conformance(apiSpec(), op, { status: 500, headers: json, text: body })[0]).toMatch(
      /^server error 500/,
    );
    expect(
      conformance(apiSpec(), op, { status: 400, headers: json, text: '{"nope":1}' }).length,
    ).toBeGreaterThan(0);
  });
});

describe('parseResponse', () => {
  const wire = (s: string) => Buffer.from(s, 'latin1');
  it('reads a chunked body, and nothing after a bodiless answer', () => {
    const chunked = wire(
      'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n2\r\nde\r\n0\r\n\r\n',
    );
    expect(parseResponse(chunked, 'GET')).toMatchObject({ status: 200, text: 'abcde' });
    const twice = wire(
      'HTTP/1.1 204 No Content\r\n\r\nHTTP/1.1 400 Bad Request\r\nContent-Length: 2\r\n\r\n{}',
    );
    expect(parseResponse(twice, 'OPTIONS')).toMatchObject({ status: 204, text: '' });
    const head = wire('HTTP/1.1 431 Too Large\r\nContent-Length: 10\r\n\r\n');
    expect(parseResponse(head, 'HEAD')).toMatchObject({ status: 431, text: '' });
  });
});
