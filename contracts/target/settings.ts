import { asRegion, KNOWN_REGIONS } from '../../server/core/regions.js';
import { DEFAULT_LIVE_HOST, LIVE_PREFIX } from '../../server/redirect/hosts.js';
import type { Region, TargetKind } from './types.js';

/** Raised when the environment does not describe a usable target; the message names the variables. */
export class ContractSettingsError extends Error {}

export interface LiveSettings {
  base: string;
  region: Region;
  clientId: string;
  secretKey: string;
  apiKey: string;
  userId: string;
  serials: Partial<Record<'boundOther' | 'unbound' | 'neverBound' | 'unknown', string>>;
  allowMutations: boolean;
  /** Requests per second on live (client-side rate limit). */
  ratePerSecond: number;
  audioUrl: string | undefined;
}

/**
 * The live partner API base of each region (hosts named once, in server/redirect/hosts.ts).
 * EU and SG are "Coming soon" on live: their hosts do not resolve yet.
 */
export const LIVE_HOSTS = Object.fromEntries(
  KNOWN_REGIONS.map((r) => [r, `https://${DEFAULT_LIVE_HOST[r]}${LIVE_PREFIX}`]),
) as Record<Region, string>;

/** Env variable per device state, for the live target. */
export const SERIAL_ENV = {
  boundOther: 'CONTRACT_SN_BOUND_OTHER',
  unbound: 'CONTRACT_SN_UNBOUND',
  neverBound: 'CONTRACT_SN_NEVER_BOUND',
  unknown: 'CONTRACT_SN_UNKNOWN',
} as const;

const LIVE_REQUIRED = ['PARTNER_CLIENT_ID', 'PARTNER_SECRET_KEY', 'PARTNER_API_KEY', 'PARTNER_USER_ID'];

type Env = Record<string, string | undefined>;

export function targetKind(env: Env): TargetKind {
  const kind = (env.CONTRACT_TARGET ?? 'sim').trim() || 'sim';
  if (kind !== 'sim' && kind !== 'url' && kind !== 'live')
    throw new ContractSettingsError(`CONTRACT_TARGET must be sim, url or live (got '${kind}')`);
  return kind;
}

export function region(env: Env): Region {
  const r = (env.CONTRACT_REGION ?? 'us').toLowerCase();
  const known = asRegion(r);
  if (!known)
    throw new ContractSettingsError(`CONTRACT_REGION must be ${KNOWN_REGIONS.join(', ')} (got '${r}')`);
  return known;
}

/** `url` target: the root of a running simulator (its API at /developer/api, control API at /__admin). */
export function urlSettings(env: Env): { root: string; region: Region; adminToken: string | undefined } {
  const raw = env.CONTRACT_BASE_URL?.trim();
  if (!raw)
    throw new ContractSettingsError(
      'CONTRACT_TARGET=url needs CONTRACT_BASE_URL, the root of a running simulator (e.g. http://127.0.0.1:4010)',
    );
  return {
    root: raw.replace(/\/+$/, '').replace(/(\/jp|\/us|\/eu|\/sg)?\/developer\/api$/, ''),
    region: region(env),
    // The variable serve, compare and health read too, so one export serves every command.
    adminToken: env.CONTRACT_ADMIN_TOKEN || env.PARTNER_SIM_ADMIN_TOKEN || undefined,
  };
}

/** `live` target: every missing required variable is named in one message. */
export function liveSettings(env: Env): LiveSettings {
  const missing = LIVE_REQUIRED.filter((k) => !env[k]?.trim());
  if (!env.CONTRACT_REGION && !env.CONTRACT_BASE_URL)
    missing.unshift('CONTRACT_REGION (us|jp|eu|sg) or CONTRACT_BASE_URL');
  if (missing.length > 0)
    throw new ContractSettingsError(
      `CONTRACT_TARGET=live is missing required settings: ${missing.join(', ')}. ` +
        'Set them in the environment (CI secrets); see README "Running the contract suite in CI".',
    );
  const reg = region(env);
  const rawBase = env.CONTRACT_BASE_URL?.trim().replace(/\/+$/, '');
  const base = rawBase
    ? /\/developer\/api$/.test(rawBase)
      ? rawBase
      : `${rawBase}/developer/api`
    : LIVE_HOSTS[reg];
  const rate = Number(env.CONTRACT_RATE_PER_SECOND ?? '2');
  if (!(rate > 0)) throw new ContractSettingsError('CONTRACT_RATE_PER_SECOND must be a positive number');
  const serials: LiveSettings['serials'] = {};
  for (const [state, key] of Object.entries(SERIAL_ENV)) {
    const v = env[key]?.trim();
    if (v) serials[state as keyof typeof SERIAL_ENV] = v;
  }
  const userId = env.PARTNER_USER_ID!.trim();
  if (userId.length < 6 || userId.length > 120)
    throw new ContractSettingsError('PARTNER_USER_ID must be 6 to 120 characters');
  return {
    base,
    region: reg,
    clientId: env.PARTNER_CLIENT_ID!.trim(),
    secretKey: env.PARTNER_SECRET_KEY!.trim(),
    apiKey: env.PARTNER_API_KEY!.trim(),
    userId,
    serials,
    allowMutations: env.CONTRACT_ALLOW_MUTATIONS === '1' || env.CONTRACT_ALLOW_MUTATIONS === 'true',
    ratePerSecond: rate,
    audioUrl: env.CONTRACT_AUDIO_URL?.trim() || undefined,
  };
}

/** Check the settings of the chosen target without opening it (the runner fails fast with this). */
export function checkSettings(env: Env): void {
  const kind = targetKind(env);
  region(env);
  if (kind === 'url') urlSettings(env);
  if (kind === 'live') liveSettings(env);
}
