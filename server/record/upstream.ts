import type { LookupFunction } from 'node:net';
import { KNOWN_REGIONS } from '../core/regions.js';
import type { Region } from '../domain/apps.js';
import { API_PREFIXES, STORAGE_PREFIX } from '../http/apiPrefixes.js';
import { DEFAULT_LIVE_HOST, LIVE_PREFIX } from '../redirect/hosts.js';
import { s3Lookup } from './storageEgress.js';

/**
 * Where `serve --record` forwards: the live service (each request to its region's host, or
 * every one to one region's), or another running instance by URL (the tests' stand-in for
 * live). Storage requests follow the presigned URLs the upstream handed out, which the
 * recorder rewrote to come back through it (`rewriteAnswer`).
 */
export type Upstream = { kind: 'live'; region?: Region } | { kind: 'url'; origin: string; base: string };

const UPSTREAM_CHOICES = 'live, live-us, live-jp, live-eu, live-sg or an http(s) URL';

/** The `--upstream` value, checked; throws saying what is accepted. */
export function parseUpstream(raw: string): Upstream {
  if (raw === 'live') return { kind: 'live' };
  // live-eu and live-sg name hosts live lists as Coming soon: they fail until they resolve.
  const region = KNOWN_REGIONS.find((r) => raw === `live-${r}`);
  if (region) return { kind: 'live', region };
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    throw new Error(`expected ${UPSTREAM_CHOICES}`);
  }
  if (!/^https?:$/.test(u.protocol) || u.search || u.hash) throw new Error(`expected ${UPSTREAM_CHOICES}`);
  return { kind: 'url', origin: u.origin, base: `${u.origin}${u.pathname.replace(/\/+$/, '')}` };
}

/** What the banner says traffic goes to. */
export function describeUpstream(up: Upstream): string {
  if (up.kind === 'url') return up.base;
  if (up.region) return `https://${DEFAULT_LIVE_HOST[up.region]} (live ${up.region.toUpperCase()})`;
  return `https://${DEFAULT_LIVE_HOST.us} and https://${DEFAULT_LIVE_HOST.jp} (live, by region)`;
}

/** Storage URLs of live name S3 hosts; they come back as `/storage/~s3/<host>/<key>`. */
const S3_VIA = `${STORAGE_PREFIX}/~s3/`;
const S3_HOST = /^[a-z0-9.-]+\.amazonaws\.com$/;
const S3_URL = /https:\/\/([a-z0-9.-]+\.amazonaws\.com)\//g;

export interface Forward {
  url: URL;
  region: Region;
  surface: 'api' | 'storage';
  /** How the host is resolved: for S3 hosts, through the address guard (storageEgress.ts). */
  lookup?: LookupFunction;
}

/** Where a request for simulator path `path` (with its query) goes, or undefined: not forwarded. */
export function forwardOf(up: Upstream, path: string): Forward | undefined {
  const bare = path.split('?')[0]!;
  const prefix = API_PREFIXES.find(([p]) => bare === p || bare.startsWith(`${p}/`));
  if (prefix) {
    const [p, region] = prefix;
    if (up.kind === 'url') return { url: new URL(up.base + path), region, surface: 'api' };
    const to = up.region ?? region;
    const rest = path.slice(p.length);
    return {
      url: new URL(`https://${DEFAULT_LIVE_HOST[to]}${LIVE_PREFIX}${rest}`),
      region: to,
      surface: 'api',
    };
  }
  if (bare !== STORAGE_PREFIX && !bare.startsWith(`${STORAGE_PREFIX}/`)) return undefined;
  const region = up.kind === 'live' && up.region ? up.region : 'us';
  if (up.kind === 'url') return { url: new URL(up.base + path), region, surface: 'storage' };
  if (!path.startsWith(S3_VIA)) return undefined;
  const rest = path.slice(S3_VIA.length);
  const host = rest.split('/')[0]!;
  // Only S3 hosts: the recorder never becomes a relay to anywhere else.
  if (!S3_HOST.test(host)) return undefined;
  return { url: new URL(`https://${rest}`), region, surface: 'storage', lookup: s3Lookup };
}

const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * An upstream answer's text with its storage URLs pointing back at the recorder (`self`, the
 * origin the client reached it by), so the client's part uploads and downloads are recorded
 * too. The path is kept: a presigned signature covers the path, not the host it is sent to
 * (the recorder sends it on to the host that signed it).
 */
export function rewriteAnswer(up: Upstream, text: string, self: string): string {
  if (up.kind === 'live') return text.replace(S3_URL, `${self}${S3_VIA}$1/`);
  return text.replace(new RegExp(escapeRe(`${up.base}${STORAGE_PREFIX}`), 'g'), `${self}${STORAGE_PREFIX}`);
}
