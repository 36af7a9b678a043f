import { describe, expect, it } from 'vitest';
import { harEntry } from '../record/harEntry.js';
import { Pseudonyms } from './pseudonyms.js';

// biome-ignore lint/suspicious/noExplicitAny: HAR entries are read field by field
type Har = any;

const tapped = (text = '') => ({ size: Buffer.byteLength(text), md5: '', bytes: Buffer.from(text) });

/** A HAR entry of one request, as the recorder writes it (URL, headers, JSON bodies). */
function entry(
  names: Pseudonyms,
  url: string,
  o: { headers?: Record<string, string>; req?: unknown; res?: unknown } = {},
) {
  const json = (v: unknown) => tapped(v === undefined ? '' : JSON.stringify(v));
  return harEntry(
    {
      started: new Date(0),
      ms: 1,
      method: 'POST',
      url,
      reqHeaders: { 'content-type': 'application/json', ...o.headers },
      reqBody: json(o.req),
      status: 200,
      statusText: 'OK',
      resHeaders: { 'content-type': 'application/json' },
      resBody: json(o.res),
      operation: undefined,
      region: 'us',
    },
    names,
  ) as Har;
}

const ROOT = 'http://127.0.0.1:4010';

describe('Pseudonyms: a value seen once is replaced where a value stands, never inside another', () => {
  it('user ids spelt like route words leave later URLs intact', () => {
    const names = new Pseudonyms();
    for (const user_id of ['developer', 'partner', 'access-token'])
      entry(names, `${ROOT}/developer/api/open/partner/users/access-token`, { req: { user_id } });
    const later = entry(names, `${ROOT}/developer/api/oauth/partner/access-token?grant=partnership`);
    expect(later.request.url).toBe(`${ROOT}/developer/api/oauth/partner/access-token?grant=partnership`);
    const jp = entry(names, `${ROOT}/jp/developer/api/open/partner/sdk/binding?type=notepro`);
    expect(jp.request.url).toBe(`${ROOT}/jp/developer/api/open/partner/sdk/binding?type=notepro`);
  });

  it('replaces a user id as a header value, a JSON value, a query value and a path segment', () => {
    const names = new Pseudonyms();
    const first = entry(names, `${ROOT}/developer/api/open/partner/users/access-token`, {
      req: { user_id: 'member-7' },
    });
    const p = first.request.postData.text.match(/"user_id":"([^"]+)"/)[1];
    expect(p).toHaveLength('member-7'.length);
    expect(p).not.toBe('member-7');
    const later = entry(names, `${ROOT}/storage/uploads/member-7/file-1?owner=member-7&other=member-77`, {
      headers: { 'x-user': 'member-7', 'x-note': 'member-77' },
      res: { owner: 'member-7', message: 'no device for member-7.', words: 'member-77 amember-7' },
    });
    expect(later.request.url).toBe(`${ROOT}/storage/uploads/${p}/file-1?owner=${p}&other=member-77`);
    const headers = Object.fromEntries(
      later.request.headers.map((h: { name: string; value: string }) => [h.name, h.value]),
    );
    expect(headers['x-user']).toBe(p);
    expect(headers['x-note']).toBe('member-77');
    expect(JSON.parse(later.response.content.text)).toEqual({
      owner: p,
      message: `no device for ${p}.`,
      words: 'member-77 amember-7',
    });
  });

  it('hides an opaque secret wherever it is echoed whole, and nothing that merely contains it', () => {
    const names = new Pseudonyms();
    const token = 'opaque0123456789';
    const first = entry(names, `${ROOT}/developer/api/open/partner/sdk/binding`, {
      headers: { authorization: `Bearer ${token}` },
    });
    const headers = Object.fromEntries(
      first.request.headers.map((h: { name: string; value: string }) => [h.name, h.value]),
    );
    const r = headers.authorization.slice('Bearer '.length);
    expect(r).toMatch(/^redacted-\d+$/);
    const later = entry(names, `${ROOT}/storage/x/${token}?t=${token}&u=${token}suffix`, {
      res: { detail: 'UNAUTHORIZED', message: `token ${token} is unknown`, echo: token },
    });
    expect(later.request.url).toBe(`${ROOT}/storage/x/${r}?t=${r}&u=${token}suffix`);
    expect(JSON.parse(later.response.content.text)).toEqual({
      detail: 'UNAUTHORIZED',
      message: `token ${r} is unknown`,
      echo: r,
    });
  });
});
