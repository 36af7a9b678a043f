import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { beforeEnd } from './beforeEnd.js';

describe('beforeEnd', () => {
  const order: string[] = [];
  const server = createServer((req, res) => {
    beforeEnd(res, async (status) => {
      await new Promise((r) => setTimeout(r, 30));
      order.push(`work ${status}`);
      if (req.url === '/fail') throw new Error('journal down');
    });
    res.statusCode = 201;
    res.end('body', () => order.push('ended'));
  });
  let base = '';
  beforeAll(async () => {
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  const get = (path: string) =>
    new Promise<string>((resolve, reject) =>
      request(`${base}${path}`, (res) => {
        let body = '';
        res.on('data', (c) => {
          body += c;
        });
        res.on('end', () => {
          order.push('client');
          resolve(body);
        });
      })
        .on('error', reject)
        .end(),
    );

  it('sends the end only after the work is done, with the status and the end callback intact', async () => {
    order.length = 0;
    expect(await get('/')).toBe('body');
    expect(order.indexOf('work 201')).toBeLessThan(order.indexOf('client'));
    expect(order).toContain('ended');
  });

  it('still ends the response when the work fails', async () => {
    order.length = 0;
    expect(await get('/fail')).toBe('body');
    expect(order[0]).toBe('work 201');
  });
});
