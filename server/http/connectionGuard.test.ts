import { connect, type Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { http } from '../testing/http.js';
import { useTestServers } from '../testing/useTestServers.js';

const servers = useTestServers();

/** A raw connection to `url`, open once the promise resolves. */
function socketTo(url: string): Promise<Socket & { ended: Promise<void>; received: () => string }> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const s = connect(Number(port), hostname);
    let data = '';
    s.on('data', (d: Buffer) => {
      data += d.toString('latin1');
    });
    s.on('error', () => {});
    const ended = new Promise<void>((r) => s.once('close', () => r()));
    s.once('connect', () => resolve(Object.assign(s, { ended, received: () => data })));
    s.once('error', reject);
  });
}

/** Whether `p` settles within `ms`. */
const within = (p: Promise<unknown>, ms: number) =>
  Promise.race([p.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), ms))]);

const tokenRequest = (host: string) =>
  `POST /developer/api/oauth/partner/access-token HTTP/1.1\r\nHost: ${host}\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 0\r\n\r\n`;

describe('connection flood guard', () => {
  it('closes the oldest idle connections to let new clients in, never holding more than the cap', async () => {
    const sim = await servers.start({ maxConnections: 4 });
    const idle = [];
    for (let i = 0; i < 12; i++) idle.push(await socketTo(sim.url));
    // Every idle connection past the cap made the oldest idle one go.
    expect(await within(Promise.all(idle.slice(0, 8).map((s) => s.ended)), 2000)).toBe(true);
    const conns = await new Promise<number>((r, j) => sim.server.getConnections((e, n) => (e ? j(e) : r(n))));
    expect(conns).toBeLessThanOrEqual(4);
    const r = await http('GET', `${sim.admin}/apps`);
    expect(r.status).toBe(200);
    for (const s of idle) s.destroy();
  });

  it('refuses a new connection with a clear 503 while every one is busy, then recovers', async () => {
    const sim = await servers.start({ maxConnections: 3 });
    const host = new URL(sim.url).host;
    const busy = [];
    for (let i = 0; i < 3; i++) {
      const s = await socketTo(sim.url);
      // Busy: a request whose body is still on its way. The server's "100 Continue" says it
      // has taken the request in.
      s.write(tokenRequest(host).replace('Content-Length: 0', 'Content-Length: 100\r\nExpect: 100-continue'));
      for (let waited = 0; !s.received().includes('100 Continue') && waited < 5000; waited += 10)
        await new Promise((r) => setTimeout(r, 10));
      s.write('grant');
      busy.push(s);
    }
    const refused = await socketTo(sim.url);
    refused.write(`GET /__admin/apps HTTP/1.1\r\nHost: ${host}\r\n\r\n`);
    await refused.ended;
    const answer = refused.received();
    expect(answer).toMatch(/^HTTP\/1\.1 503 /);
    expect(answer).toMatch(/\r\nconnection: close\r\n/i);
    expect(answer).toMatch(/\r\nretry-after: 1\r\n/i);
    expect(JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4))).toMatchObject({
      detail: 'TOO_MANY_CONNECTIONS',
    });
    // The busy ones finish (here: their clients give up); new clients get in again.
    for (const s of busy) s.destroy();
    await Promise.all(busy.map((s) => s.ended));
    let status = 0;
    for (let i = 0; i < 20 && status !== 200; i++) {
      if (i > 0) await new Promise((r) => setTimeout(r, 50));
      status = (await http('GET', `${sim.admin}/apps`)).status;
    }
    expect(status).toBe(200);
  });

  it('cuts a body that stalls, and a connection that never finishes (or starts) its headers', async () => {
    const sim = await servers.start({ bodyTimeoutMs: 300, headersTimeoutMs: 400 });
    const host = new URL(sim.url).host;
    const slowBody = await socketTo(sim.url);
    slowBody.write(
      `POST /developer/api/oauth/partner/access-token HTTP/1.1\r\nHost: ${host}\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 100\r\n\r\ngrant`,
    );
    const slowHeaders = await socketTo(sim.url);
    slowHeaders.write(`GET /__admin/apps HTTP/1.1\r\nHost: ${host}\r\n`);
    const silent = await socketTo(sim.url);
    expect(await within(slowBody.ended, 3000)).toBe(true);
    expect(await within(slowHeaders.ended, 3000)).toBe(true);
    expect(await within(silent.ended, 3000)).toBe(true);
  });

  it('keeps an idle keep-alive connection longer than the headers timeout, and a slow but steady body', async () => {
    const sim = await servers.start({ bodyTimeoutMs: 400, headersTimeoutMs: 300 });
    const host = new URL(sim.url).host;
    const s = await socketTo(sim.url);
    s.write(`GET /__admin/apps HTTP/1.1\r\nHost: ${host}\r\n\r\n`);
    await new Promise((r) => setTimeout(r, 1200));
    expect(s.received()).toMatch(/^HTTP\/1\.1 200 /);
    s.write(`GET /__admin/apps HTTP/1.1\r\nHost: ${host}\r\n\r\n`);
    await expect.poll(() => s.received().match(/HTTP\/1\.1 200 /g), { interval: 10 }).toHaveLength(2);
    const body = 'grant_type=client_credentials';
    s.write(
      `POST /developer/api/oauth/partner/access-token HTTP/1.1\r\nHost: ${host}\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: ${body.length}\r\n\r\n`,
    );
    for (const c of body) {
      s.write(c);
      await new Promise((r) => setTimeout(r, 40));
    }
    await new Promise((r) => setTimeout(r, 300));
    expect(s.received().match(/HTTP\/1\.1 \d{3} /g)).toHaveLength(3);
    expect(s.destroyed).toBe(false);
    s.destroy();
  });
});
