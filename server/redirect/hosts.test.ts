import { describe, expect, it } from 'vitest';
import { API_PREFIXES } from '../http/apiPrefixes.js';
import { LIVE_HOSTS, redirectTarget, simulatorUrl } from './hosts.js';

const sim = new URL('http://127.0.0.1:4010');
const to = (url: string, base = sim) => redirectTarget(new URL(url), base)?.href;

describe('redirectTarget', () => {
  it('sends every live host to the prefix the simulator serves its region under', () => {
    for (const [host, region] of Object.entries(LIVE_HOSTS)) {
      const prefix = API_PREFIXES.find(([p, r]) => r === region && p.endsWith('/developer/api'))![0];
      const got = to(`https://${host}/developer/api/oauth/partner/access-token`);
      expect(got, host).toBe(`http://127.0.0.1:4010${prefix}/oauth/partner/access-token`);
    }
    expect(to('https://platform-jp.plaud.ai/developer/api/x')).toBe(
      'http://127.0.0.1:4010/jp/developer/api/x',
    );
    expect(to('https://platform-us.plaud.ai/developer/api/x')).toBe('http://127.0.0.1:4010/developer/api/x');
  });

  it('keeps the query, ignores host case and the live port, and honours a simulator path', () => {
    expect(to('https://PLATFORM-JP.plaud.ai:443/developer/api/a?sn=881x&type=notepro')).toBe(
      'http://127.0.0.1:4010/jp/developer/api/a?sn=881x&type=notepro',
    );
    expect(to('https://platform.plaud.ai/developer/api/a', new URL('https://sim.test:8443/base/'))).toBe(
      'https://sim.test:8443/base/developer/api/a',
    );
  });

  it('leaves other hosts alone, presigned storage URLs on the simulator included', () => {
    expect(to('http://127.0.0.1:4010/storage/uploads/f_1?partNumber=1')).toBeUndefined();
    expect(to('https://plaud.ai/developer/api/x')).toBeUndefined();
    expect(to('https://platform-cn.plaud.ai/developer/api/x')).toBeUndefined();
  });
});

describe('simulatorUrl', () => {
  it('defaults to the CLI address and refuses what is not http(s)', () => {
    expect(simulatorUrl(undefined).href).toBe('http://127.0.0.1:4010/');
    expect(simulatorUrl('').href).toBe('http://127.0.0.1:4010/');
    expect(simulatorUrl('http://sim:9000').port).toBe('9000');
    expect(() => simulatorUrl('ftp://sim')).toThrow(/PARTNER_SIM_URL/);
  });
});
