import type { Region } from '../domain/apps.js';
import { API_PREFIXES } from '../http/apiPrefixes.js';

/**
 * The live hosts partner code hard-codes, and the region each serves (live notes,
 * "Addresses" and "Tokens and hosts"): US `platform-us` (default) and the quickstart's
 * `platform`, JP `platform-jp`; the template default `platform-test` and `platform-us-pre`
 * are pre-production US hosts. Every one serves the API under `/developer/api`. EU
 * `platform-eu` and Singapore `platform-sg` are "Coming soon" on live (notes, "Regions"):
 * served only when their region is enabled (`--regions`, `PARTNER_SIM_REGIONS`).
 */
export const LIVE_HOSTS: Readonly<Record<string, Region>> = {
  'platform.plaud.ai': 'us',
  'platform-us.plaud.ai': 'us',
  'platform-jp.plaud.ai': 'jp',
  'platform-test.plaud.ai': 'us',
  'platform-us-pre.plaud.ai': 'us',
  'platform-eu.plaud.ai': 'eu',
  'platform-sg.plaud.ai': 'sg',
};

/** The production host of each region, where a client goes unless told otherwise. */
export const DEFAULT_LIVE_HOST: Readonly<Record<Region, string>> = {
  us: 'platform-us.plaud.ai',
  jp: 'platform-jp.plaud.ai',
  eu: 'platform-eu.plaud.ai',
  sg: 'platform-sg.plaud.ai',
};

/**
 * The region of a live host whose region is not enabled, or undefined: live does not resolve
 * such a host yet, so neither may the redirect nor the proxy serve it.
 */
export function closedRegion(host: string, enabled: readonly Region[]): Region | undefined {
  const region = LIVE_HOSTS[host.toLowerCase().replace(/\.$/, '')];
  return region && !enabled.includes(region) ? region : undefined;
}

/**
 * The error Node's resolver gives for a name that does not resolve, made without asking
 * one: what a request to a host of a region not enabled fails with.
 */
export function notFoundError(host: string): NodeJS.ErrnoException & { hostname: string } {
  return Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), {
    errno: -3008,
    code: 'ENOTFOUND',
    syscall: 'getaddrinfo',
    hostname: host,
  });
}

/**
 * Maps a request URL to the simulator's, `unresolved` to fail it as a name that does not
 * resolve (a host of a region not enabled), or undefined to leave the request alone.
 */
export type Redirect = (url: URL) => URL | 'unresolved' | undefined;

/** Where every live host serves the partner API. */
export const LIVE_PREFIX = '/developer/api';

/** What the simulator puts before a live path for each region: '' for US, '/jp' for JP. */
export const regionRoot = (region: Region): string => {
  const prefix = API_PREFIXES.find(([, r]) => r === region)![0];
  return prefix.slice(0, prefix.length - LIVE_PREFIX.length);
};

/**
 * The simulator address for a live one, or undefined when `url` is not a live host (left
 * alone: presigned storage URLs already point at the simulator). `sim` may carry a path
 * (a simulator behind a reverse proxy); the live path keeps its query.
 */
export function redirectTarget(url: URL, sim: URL): URL | undefined {
  const region = LIVE_HOSTS[url.hostname.toLowerCase()];
  if (!region) return undefined;
  const out = new URL(sim.href);
  out.pathname = `${sim.pathname.replace(/\/+$/, '')}${regionRoot(region)}${url.pathname}`;
  out.search = url.search;
  return out;
}

/** The simulator address from `PARTNER_SIM_URL`, default the CLI's `http://127.0.0.1:4010`. */
export function simulatorUrl(raw: string | undefined): URL {
  const u = new URL(raw || 'http://127.0.0.1:4010');
  if (!/^https?:$/.test(u.protocol)) throw new Error(`PARTNER_SIM_URL must be http(s): ${raw}`);
  return u;
}
