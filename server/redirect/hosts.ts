import type { Region } from '../domain/apps.js';
import { API_PREFIXES } from '../http/apiPrefixes.js';

/**
 * The live hosts partner code hard-codes, and the region each serves (live notes,
 * "Addresses" and "Tokens and hosts"): US `platform-us` (default) and the quickstart's
 * `platform`, JP `platform-jp`; the template default `platform-test` and `platform-us-pre`
 * are pre-production US hosts. Every one serves the API under `/developer/api`.
 */
export const LIVE_HOSTS: Readonly<Record<string, Region>> = {
  'platform.plaud.ai': 'us',
  'platform-us.plaud.ai': 'us',
  'platform-jp.plaud.ai': 'jp',
  'platform-test.plaud.ai': 'us',
  'platform-us-pre.plaud.ai': 'us',
};

/** The production host of each region, where a client goes unless told otherwise. */
export const DEFAULT_LIVE_HOST: Readonly<Record<Region, string>> = {
  us: 'platform-us.plaud.ai',
  jp: 'platform-jp.plaud.ai',
};

/** Maps a request URL to the simulator's, or undefined to leave the request alone. */
export type Redirect = (url: URL) => URL | undefined;

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
