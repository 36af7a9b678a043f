import { LIVE_HOSTS } from '../../contracts/target/settings.js';
import type { PartnerCredentials } from '../client/partnerClient.js';
import { defaults, parseConfig } from '../config.js';
import { asRegion, DEFAULT_REGIONS } from '../core/regions.js';
import type { NewApp, Region } from '../domain/apps.js';
import { US_API } from '../http/apiPrefixes.js';
import { regionRoot } from '../redirect/hosts.js';
import { serveSimulator } from '../simulator.js';
import { readFixture } from '../spec/fixtures.js';

/**
 * Where the client commands send their requests. `sim`: an in-memory simulator started in
 * this process with the fixtures' demo app, so no settings are needed; a URL: a running
 * simulator (demo credentials unless the environment names others); `us`/`jp`: the live
 * regional hosts with credentials from the environment (the contract suite's names).
 */
export interface ClientTarget {
  label: string;
  api: string;
  app: PartnerCredentials;
  userId: string;
  stop(): Promise<void>;
}

/** A mistake in how the command was called or configured: one line, exit 2. */
export class UsageError extends Error {
  override name = 'UsageError';
}

type Env = Record<string, string | undefined>;
const LIVE_REQUIRED = [
  'PARTNER_CLIENT_ID',
  'PARTNER_SECRET_KEY',
  'PARTNER_API_KEY',
  'PARTNER_USER_ID',
] as const;
const DEFAULT_USER = 'cli-user-0001';

/**
 * The demo app of the fixtures for a region (its credentials are public anyway). The fixtures
 * hold none in the opt-in regions (EU, SG): an in-process simulator (`sim`) makes one there.
 */
async function demoApp(
  fixturesDir: string,
  region: Region = 'us',
  sim?: string,
): Promise<PartnerCredentials> {
  if (sim && region !== 'us' && region !== 'jp') {
    const res = await fetch(`${sim}/__admin/apps`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ client_id: `demo-client-${region}`, region }),
    });
    if (!res.ok) throw new UsageError(`could not create a ${region} app: ${res.status} ${await res.text()}`);
    return (await res.json()) as PartnerCredentials;
  }
  const apps = (await readFixture<NewApp[]>(fixturesDir, 'apps.json')) ?? [];
  const app = apps.find((a) => a.region === region && a.client_id?.startsWith('demo')) ?? apps[0];
  if (!app?.client_id || !app.secret_key || !app.api_key)
    throw new UsageError('the fixtures hold no app to use; pass credentials in the environment');
  return { client_id: app.client_id, secret_key: app.secret_key, api_key: app.api_key };
}

/** Credentials from the environment over `fallback`. */
const fromEnv = (env: Env, fallback: PartnerCredentials): PartnerCredentials => ({
  client_id: env.PARTNER_CLIENT_ID?.trim() || fallback.client_id,
  secret_key: env.PARTNER_SECRET_KEY?.trim() || fallback.secret_key,
  api_key: env.PARTNER_API_KEY?.trim() || fallback.api_key,
});

export interface SimOptions {
  /** Extra upload filetypes the in-process simulator accepts (the CLI widens it to the file's). */
  uploadFiletypes?: string[];
  /** Upload ChunkSize of the in-process simulator. */
  chunkSize?: number;
}

/**
 * The region, as for `contract`: `--target us`/`jp` name one; else `--region` (us unless
 * given), live's host or a simulator's mount.
 */
function regionOf(target: string, region: string | undefined): Region {
  if (region !== undefined && !asRegion(region))
    throw new UsageError(`--region must be us, jp, eu or sg (got '${region}')`);
  const named = asRegion(target);
  if (named) {
    if (region !== undefined && region !== target)
      throw new UsageError(`--target ${target} and --region ${region} name two regions: give one`);
    return named;
  }
  return asRegion(region ?? 'us')!;
}

export async function openTarget(
  given: string,
  env: Env,
  sim: SimOptions = {},
  region?: string,
): Promise<ClientTarget> {
  const target = given === 'live' || asRegion(given) ? regionOf(given, region) : given;
  // On a simulator the region is its mount: /jp/developer/api with the JP demo app.
  const simRegion = regionOf('sim', region);
  const prefix = `${regionRoot(simRegion)}${US_API}`;
  const userId = env.PARTNER_USER_ID?.trim() || DEFAULT_USER;
  if (target === 'sim') {
    const config = parseConfig(
      {},
      {},
      {
        inMemory: true,
        logLevel: 'silent',
        port: 0,
        // A few seconds of simulated work, so the status spinner has something to show.
        transcriptionDelay: 3000,
        uploadFiletypes: sim.uploadFiletypes ?? [],
        // EU and SG are opt-in (--regions): served here when asked for.
        regions: [...new Set([...DEFAULT_REGIONS, simRegion])],
        ...(sim.chunkSize ? { chunkSize: sim.chunkSize } : {}),
      },
    );
    const running = await serveSimulator(config);
    return {
      label: `in-process simulator${simRegion === 'us' ? '' : ` (${simRegion.toUpperCase()})`}`,
      api: `${running.url}${prefix}`,
      app: await demoApp(config.fixturesDir, simRegion, running.url),
      userId,
      stop: () => running.stop(),
    };
  }
  const live = asRegion(target);
  if (live) {
    const missing = LIVE_REQUIRED.filter((k) => !env[k]?.trim());
    if (missing.length > 0)
      throw new UsageError(`--target ${given} needs these environment variables: ${missing.join(', ')}`);
    return {
      label: `live ${live} (${LIVE_HOSTS[live]})`,
      api: LIVE_HOSTS[live],
      app: fromEnv(env, { client_id: '', secret_key: '', api_key: '' }),
      userId,
      stop: async () => {},
    };
  }
  let url: URL;
  try {
    url = new URL(target);
  } catch {
    throw new UsageError(`--target must be sim, live, us, jp, eu, sg or a URL (got '${target}')`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new UsageError(`--target URL must be http or https (got '${url.protocol}')`);
  const base = url.toString().replace(/\/+$/, '');
  // Printed in progress lines: never the user:password a URL may carry.
  const shown = new URL(url);
  shown.username = '';
  shown.password = '';
  return {
    label: shown.toString().replace(/\/+$/, ''),
    api: base.endsWith(US_API) ? base : `${base}${prefix}`,
    app: fromEnv(env, await demoApp(defaults.fixturesDir, simRegion)),
    userId,
    stop: async () => {},
  };
}
