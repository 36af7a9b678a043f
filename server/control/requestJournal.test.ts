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

  it('writes a line per partner request at info only with --access-log; the journal has them either way', async () => {
    for (const accessLog of [false, true]) {
      const s = await servers.start({ logLevel: 'info', accessLog });
      const info = vi.spyOn(s.services.deps.logger, 'info');
      expect((await exchangeToken(s.api, DEMO_US)).status).toBe(200);
      await new Promise((r) => setTimeout(r, 20));
      expect(requestLines(info)).toBe(accessLog ? 1 : 0);
      expect((await http('GET', `${s.admin}/requests`)).body.length).toBe(1);
    }
  });

  it('adds the request id, and the error code of a failed answer, to JSON lines', async () => {
    const s = await servers.start({ logLevel: 'info', accessLog: true });
    const info = vi.spyOn(s.services.deps.logger, 'info');
    const r = await exchangeToken(s.api, { ...DEMO_US, secret_key: 'wrong' }, { 'X-Request-Id': 'ci-7' });
    expect(r.status).toBe(401);
    await new Promise((r) => setTimeout(r, 20));
    const line = info.mock.calls.find((c) => c[1] === 'request')![0];
    expect(line).toMatchObject({ status: 401, request_id: 'ci-7', code: r.body.detail });
  });

  it('writes one readable line per request at info by default when logs are readable (a terminal)', async () => {
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
    const lines = written.map((l) => l.replace(/^\[[\d:.]+\] INFO: /, ''));
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
