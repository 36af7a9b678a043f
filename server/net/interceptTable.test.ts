import { describe, expect, it } from 'vitest';
import { ConfigError, parseConfig } from '../config.js';
import { KNOWN_REGIONS } from '../core/regions.js';
import { LIVE_HOSTS, redirectTarget } from '../redirect/hosts.js';
import { hostName, InterceptTable } from './interceptTable.js';

const table = (storageHost?: string) => {
  const t = new InterceptTable({
    storageHost,
    extraHosts: ['sim.lan.test', '[fd00::5]'],
    bindHost: '127.0.0.1',
    regions: KNOWN_REGIONS,
  });
  t.port = 4010;
  return t;
};

describe('InterceptTable', () => {
  it('serves every live host the redirect knows, in the region the redirect sends it to', () => {
    const t = table();
    const sim = new URL('http://127.0.0.1:4010');
    for (const [host, region] of Object.entries(LIVE_HOSTS)) {
      expect(t.proxyRoute(host, 443)).toEqual({ kind: 'live', region });
      const path = '/developer/api/open/partner/sdk/binding?sn=1';
      const viaRedirect = redirectTarget(new URL(`https://${host}${path}`), sim)!;
      expect(InterceptTable.path(t.hostRoute(host.toUpperCase()), path)).toBe(
        viaRedirect.pathname + viaRedirect.search,
      );
    }
  });

  it('keeps non-API paths of a live host (plain storage URLs, docs) and maps storage keys', () => {
    expect(InterceptTable.path({ kind: 'live', region: 'jp' }, '/storage/uploads/f?x=1')).toBe(
      '/storage/uploads/f?x=1',
    );
    expect(InterceptTable.path({ kind: 'live', region: 'jp' }, '/developer/api')).toBe('/jp/developer/api');
    expect(InterceptTable.path({ kind: 'storage' }, '/uploads/file_1?partNumber=1')).toBe(
      '/storage/uploads/file_1?partNumber=1',
    );
    expect(table('b.s3.us-east-1.amazonaws.com').proxyRoute('B.s3.us-east-1.amazonaws.com.', 443)).toEqual({
      kind: 'storage',
    });
  });

  it('refuses by name alone: other hosts, other loopback ports, look-alikes', () => {
    const t = table('b.s3.us-east-1.amazonaws.com');
    for (const [host, port] of [
      ['example.com', 443],
      ['platform-cn.plaud.ai', 443],
      ['platform-us.plaud.ai.evil.test', 443],
      ['other.s3.us-east-1.amazonaws.com', 443],
      ['127.0.0.1', 5432],
      ['localhost', 80],
      ['10.0.0.1', 443],
    ] as const)
      expect(t.proxyRoute(host, port), `${host}:${port}`).toBeUndefined();
    expect(t.proxyRoute('127.0.0.1', 4010)).toEqual({ kind: 'self' });
    expect(t.proxyRoute('sim.lan.test', 8443)).toEqual({ kind: 'self' });
    expect(t.proxyRoute('fd00::5', 443)).toEqual({ kind: 'self' });
  });

  it('puts loopback, the emulator alias, the live hosts, extra names and the storage host in the certificate', () => {
    const names = table('b.s3.us-east-1.amazonaws.com').certNames;
    expect(names[0]).toBe('localhost');
    expect(names).toEqual(
      expect.arrayContaining([
        '127.0.0.1',
        '::1',
        '10.0.2.2',
        ...Object.keys(LIVE_HOSTS),
        'sim.lan.test',
        'fd00::5',
        'b.s3.us-east-1.amazonaws.com',
      ]),
    );
  });

  it('reads host names out of Host headers and authorities', () => {
    expect(hostName('Platform-US.plaud.ai:443')).toBe('platform-us.plaud.ai');
    expect(hostName('[::1]:4010')).toBe('::1');
    expect(hostName('localhost.')).toBe('localhost');
  });
});

describe('--https options', () => {
  it('--storage-host takes one DNS name and needs --https; --https-only needs --https', () => {
    expect(parseConfig({ https: true, 'storage-host': 'B.s3.eu-west-1.amazonaws.com' }).storageHost).toBe(
      'b.s3.eu-west-1.amazonaws.com',
    );
    expect(() => parseConfig({ 'storage-host': 'b.s3.amazonaws.com' })).toThrow(/needs --https/);
    for (const bad of ['1.2.3.4', 'a,b', 'host:443', 'a b'])
      expect(() => parseConfig({ https: true, 'storage-host': bad }), bad).toThrow(ConfigError);
    expect(() => parseConfig({ 'https-only': true })).toThrow(/needs --https/);
  });

  it('--tls-hosts takes names and addresses, not ports', () => {
    expect(parseConfig({ 'tls-hosts': '192.168.1.20, Sim.Lan,fd00::1' }).tlsHosts).toEqual([
      '192.168.1.20',
      'sim.lan',
      'fd00::1',
    ]);
    for (const bad of ['sim:443', 'a:443', '*', 'a/b'])
      expect(() => parseConfig({ 'tls-hosts': bad }), bad).toThrow(/not a host name/);
  });
});
