import { request } from 'node:http';
import { describe, expect, it, vi } from 'vitest';
import { DEMO_US, exchangeToken, http } from '../testing/http.js';
import { useTestServers } from '../testing/useTestServers.js';
import { TrafficSummary } from './trafficSummary.js';

const servers = useTestServers();

describe('request recorder', () => {
  it('survives a journal that throws: the request is answered, the process and later requests go on', async () => {
    const s = await servers.start();
    const add = s.services.journal.add.bind(s.services.journal);
    let throws = true;
    s.services.journal.add = (...args) => {
      if (throws) throw new RangeError('Invalid time value');
      return add(...args);
    };
    const first = await exchangeToken(s.api, DEMO_US);
    expect(first.status).toBe(200);
    // The close listener runs after the answer: give it its turn, then prove the process lives.
    await new Promise((r) => setTimeout(r, 20));
    throws = false;
    expect((await exchangeToken(s.api, DEMO_US)).status).toBe(200);
    const journal = await http('GET', `${s.admin}/requests`);
    expect(journal.body.length).toBe(1);
  });

  it('survives a logger that throws, even when logging the failure throws too', async () => {
    const s = await servers.start({ logLevel: 'debug' });
    const logger = s.services.deps.logger;
    const boom = () => {
      throw new Error('log sink gone');
    };
    const saved = { info: logger.info, debug: logger.debug, error: logger.error };
    Object.assign(logger, { info: boom, debug: boom, error: boom });
    try {
      expect((await exchangeToken(s.api, DEMO_US)).status).toBe(200);
      expect((await http('GET', `${s.admin}/clock`)).status).toBe(200);
      await new Promise((r) => setTimeout(r, 20));
      expect((await exchangeToken(s.api, DEMO_US)).status).toBe(200);
    } finally {
      Object.assign(logger, saved);
    }
    expect((await http('GET', `${s.admin}/requests`)).body.length).toBe(2);
  });
});

describe('request lines and the traffic summary', () => {
  const requestLines = (spy: { mock: { calls: unknown[][] } }) =>
    spy.mock.calls.filter((c) => c[1] === 'request').length;

  it('writes a line per partner request by default, at debug only with PARTNER_SIM_ACCESS_LOG=off; the journal has them either way', async () => {
    for (const accessLog of [true, false]) {
      const s = await servers.start({ logLevel: 'info', accessLog });
      const info = vi.spyOn(s.services.deps.logger, 'info');
      expect((await exchangeToken(s.api, DEMO_US)).status).toBe(200);
      await new Promise((r) => setTimeout(r, 20));
      expect(requestLines(info)).toBe(accessLog ? 1 : 0);
      expect((await http('GET', `${s.admin}/requests`)).body.length).toBe(1);
    }
  });

  it('logs every surface, a refused Host too, at a level by status (4xx warn, 5xx error), with method, path, code, ms and request id', async () => {
    const s = await servers.start({ logLevel: 'info' });
    const logger = s.services.deps.logger;
    const spies = {
      info: vi.spyOn(logger, 'info'),
      warn: vi.spyOn(logger, 'warn'),
      error: vi.spyOn(logger, 'error'),
    };
    const root = s.url;
    await http('GET', `${s.admin}/clock`, { headers: { 'X-Request-Id': 'ci-admin' } });
    await http('GET', `${root}/docs`);
    await http('GET', `${root}/__device/phones/ph_${'0'.repeat(32)}`);
    await exchangeToken(s.api, { ...DEMO_US, secret_key: 'wrong' });
    // A Host the control API refuses (a DNS-rebinding page's request): fetch cannot set Host.
    const refused = await new Promise<number>((resolve, reject) => {
      const u = new URL(`${s.admin}/clock`);
      request(
        { host: u.hostname, port: u.port, path: u.pathname, headers: { host: 'evil.example' } },
        (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode!));
        },
      )
        .on('error', reject)
        .end();
    });
    expect(refused).toBe(403);
    // An injected 503 on the token exchange: a server error, logged as one.
    await http('POST', `${s.admin}/faults`, {
      json: { operation: 'getPartnerToken', status: 503, times: 1 },
    });
    expect((await exchangeToken(s.api, DEMO_US)).status).toBe(503);
    await new Promise((r) => setTimeout(r, 20));
    const lines = (spy: { mock: { calls: unknown[][] } }) =>
      spy.mock.calls.filter((c) => c[1] === 'request').map((c) => c[0] as Record<string, unknown>);
    const info = lines(spies.info);
    const warn = lines(spies.warn);
    const error = lines(spies.error);
    expect(info).toContainEqual(
      expect.objectContaining({
        method: 'GET',
        path: '/__admin/clock',
        status: 200,
        surface: 'admin',
        request_id: 'ci-admin',
      }),
    );
    expect(info).toContainEqual(expect.objectContaining({ path: '/docs', surface: 'other' }));
    expect(warn).toContainEqual(
      expect.objectContaining({
        path: `/__device/phones/ph_${'0'.repeat(32)}`,
        status: 404,
        surface: 'device',
        code: expect.any(String),
      }),
    );
    expect(warn).toContainEqual(
      expect.objectContaining({
        path: '/developer/api/oauth/partner/access-token',
        status: 401,
        client_id: 'demo-client-us',
      }),
    );
    expect(warn).toContainEqual(
      expect.objectContaining({ path: '/__admin/clock', status: 403, code: 'HOST_NOT_ALLOWED' }),
    );
    expect(error).toContainEqual(
      expect.objectContaining({ path: '/developer/api/oauth/partner/access-token', status: 503 }),
    );
    for (const line of [...info, ...warn, ...error]) {
      expect(line).toMatchObject({ latency_ms: expect.any(Number), request_id: expect.any(String) });
      expect(line).not.toHaveProperty('headers');
    }
    // One line a request: seven requests (the fault's POST too), seven lines.
    expect(info.length + warn.length + error.length).toBe(7);
  });

  it('adds the request id, and the error code of a failed answer, to JSON lines', async () => {
    const s = await servers.start({ logLevel: 'info', accessLog: true });
    const warn = vi.spyOn(s.services.deps.logger, 'warn');
    const r = await exchangeToken(s.api, { ...DEMO_US, secret_key: 'wrong' }, { 'X-Request-Id': 'ci-7' });
    expect(r.status).toBe(401);
    await new Promise((r) => setTimeout(r, 20));
    const line = warn.mock.calls.find((c) => c[1] === 'request')![0];
    expect(line).toMatchObject({ status: 401, request_id: 'ci-7', code: r.body.detail });
  });

  it('writes one readable line per request by default when logs are readable (a terminal)', async () => {
    const s = await servers.start({ logLevel: 'info', logFormat: 'pretty' });
    // The lines go straight to stdout: caught there (and kept off the test's output).
    const written: string[] = [];
    const out = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
      if (String(chunk).includes(' /developer/api/')) written.push(String(chunk));
      return true;
    });
    const secret = 'wrong-secret-never-logged';
    let r: Awaited<ReturnType<typeof exchangeToken>>;
    try {
      r = await exchangeToken(s.api, { ...DEMO_US, secret_key: secret }, { 'X-Request-Id': 'ci-8' });
      await http('GET', `${s.api}/files/x/download?token=tok-in-query&sn=1`);
      await new Promise((r) => setTimeout(r, 20));
    } finally {
      out.mockRestore();
    }
    expect(r.status).toBe(401);
    // A client's mistake warns; a success is information.
    expect(written[0]).toMatch(/^\[[\d:.]+\] WARN: /);
    const lines = written.map((l) => l.replace(/^\[[\d:.]+\] (INFO|WARN): /, ''));
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(
      new RegExp(
        `^POST /developer/api/oauth/partner/access-token 401 ${r.body.detail} [\\d.]+ms app=demo-client-us\\? id=ci-8\n$`,
      ),
    );
    expect(lines.join('\n')).not.toContain(secret);
    expect(lines[1]).toMatch(/^GET \/developer\/api\/files\/x\/download\?/);
    expect(lines[1]).not.toContain('tok-in-query');
  });

  it('sums up each minute of traffic at info with the first request after it', () => {
    const info = vi.fn();
    const logger = { info, isLevelEnabled: () => true } as unknown as ConstructorParameters<
      typeof TrafficSummary
    >[0];
    const summary = new TrafficSummary(logger);
    const t0 = performance.now();
    summary.count(200, t0);
    summary.count(404, t0 + 1_000);
    summary.count(503, t0 + 2_000);
    expect(info).not.toHaveBeenCalled();
    summary.count(200, t0 + 61_000);
    expect(info).toHaveBeenCalledTimes(1);
    expect(info.mock.calls[0]![0]).toMatchObject({
      requests: 3,
      client_errors: 1,
      server_errors_or_dropped: 1,
    });
  });
});
