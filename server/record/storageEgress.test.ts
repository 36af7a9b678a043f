import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AddressRefused } from '../core/addressGuard.js';
import { withEgressSpy } from '../testing/egressSpy.js';
import { http } from '../testing/http.js';
import { startTestServer, type TestServer } from '../testing/testServer.js';
import { answeredRefusal } from './storageEgress.js';

// Record mode against live: a client's storage requests come back as /storage/~s3/<host>/…
// and go on to that *.amazonaws.com host. A name is only a name: the stub resolver makes S3
// names resolve to this machine, the LAN and the metadata address, and the egress spy stops
// any connection that would leave loopback, so nothing leaves the machine even if the guard
// let one through.
let dir: string;
let s: TestServer;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'psim-s3egress-'));
  s = await startTestServer({ record: dir, upstream: 'live' });
}, 60_000);
afterAll(async () => {
  await s.stop();
  await rm(dir, { recursive: true, force: true });
});

const NAMES = {
  'loop.s3.amazonaws.com': '127.0.0.1',
  'six.s3.amazonaws.com': '::1',
  'meta.s3.amazonaws.com': '169.254.169.254',
  'lan.s3.us-east-1.amazonaws.com': '10.1.2.3',
  'pub.s3.amazonaws.com': '203.0.113.7',
};

const put = (host: string) =>
  http('PUT', `${s.url}/storage/~s3/${host}/uploads/k?partNumber=1&X-Amz-Signature=ab`, {
    raw: Buffer.alloc(64, 1),
  });

describe("the recorder's S3 forwarding", () => {
  it('resolves the name, refuses a non-public address with a 502 naming it, and connects only to the address checked', async () => {
    const answers: Record<string, { status: number; text: string; headers: Headers }> = {};
    const seen = await withEgressSpy(NAMES, async () => {
      for (const host of Object.keys(NAMES)) answers[host] = await put(host);
    });
    const refused: Array<[string, string]> = [
      ['loop.s3.amazonaws.com', '127.0.0.1, loopback (this machine)'],
      ['six.s3.amazonaws.com', '::1, loopback (this machine)'],
      ['meta.s3.amazonaws.com', '169.254.169.254, link-local (cloud metadata)'],
      ['lan.s3.us-east-1.amazonaws.com', '10.1.2.3, private or reserved'],
    ];
    for (const [host, what] of refused) {
      // A storage path answers as S3 does, in XML, and with the recorder's request id.
      expect(answers[host]!.status, host).toBe(502);
      expect(answers[host]!.headers.get('content-type'), host).toBe('application/xml');
      expect(answers[host]!.text, host).toContain('<Code>UPSTREAM_ADDRESS_REFUSED</Code>');
      expect(answers[host]!.text, host).toContain(`${host} resolves to ${what}, not a public address`);
      const id = answers[host]!.headers.get('x-request-id');
      expect(id, host).toBeTruthy();
      expect(answers[host]!.text, host).toContain(`<RequestId>${id}</RequestId>`);
    }
    // A public address is let through, to the very address resolved: the wall saw it, once.
    expect(answers['pub.s3.amazonaws.com']!.status).toBe(502);
    expect(answers['pub.s3.amazonaws.com']!.text).toContain('<Code>UPSTREAM_UNREACHABLE</Code>');
    expect(seen.blocked).toEqual(['203.0.113.7:443']);
    expect(seen.lookups.filter((h) => h === 'pub.s3.amazonaws.com')).toHaveLength(1);
  });

  it('logs a refused host once, at warn', () => {
    const warned: unknown[] = [];
    const logger = { warn: (o: unknown) => warned.push(o) } as unknown as Logger;
    const answered: unknown[] = [];
    const answer = (...a: unknown[]) => answered.push(a);
    const url = new URL('https://once.s3.amazonaws.com/k');
    const e = new AddressRefused('once.s3.amazonaws.com resolves to 127.0.0.1, loopback (this machine)');
    expect(answeredRefusal(e, url, logger, answer)).toBe(true);
    expect(answeredRefusal(e, url, logger, answer)).toBe(true);
    expect(answeredRefusal(new Error('ECONNRESET'), url, logger, answer)).toBe(false);
    expect(answered).toHaveLength(2);
    expect(warned).toEqual([{ host: 'once.s3.amazonaws.com', why: e.message }]);
  });
});
