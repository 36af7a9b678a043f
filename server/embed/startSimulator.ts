import { type Config, parseConfig } from '../config.js';
import { ADMIN_PREFIX, EU_API, JP_API, SG_API, STORAGE_PREFIX, US_API } from '../http/apiPrefixes.js';
import { serveSimulator } from '../simulator.js';
import { ControlClient } from './controlClient.js';

export interface SimulatorOptions {
  /** Reproducible ids and secrets (tests only: they become guessable). Default: random. */
  seed?: string;
  /** Folder of fixture JSON files (apps, devices, transcripts). Default: the package's fixtures. */
  fixturesDir?: string;
  /** Any other setting of `partner-sim serve`, by its Config name. */
  config?: Partial<Config>;
}

export interface SimulatorUrls {
  /** US partner API base, e.g. http://127.0.0.1:PORT/developer/api */
  us: string;
  /** JP partner API base. */
  jp: string;
  /** EU and SG partner API bases: only when `config.regions` serves them (opt-in, as `--regions`). */
  eu?: string;
  sg?: string;
  /** The storage host presigned URLs point at. */
  storage: string;
  /** The control API base (`/__admin`). */
  admin: string;
}

export interface SimulatorHandle {
  /** The server's root, e.g. http://127.0.0.1:PORT */
  url: string;
  urls: SimulatorUrls;
  /**
   * With `config: { https: true }`: the same port's https:// root, the local CA's certificate
   * file to trust, and the proxy address for HTTPS_PROXY (docs/any-client.md).
   */
  https?: { url: string; caCertPath: string; proxy: string };
  /** Typed control API client (devices, apps, clock, faults, transcripts, journal, reset). */
  control: ControlClient;
  /** Close connections, stop background work, release the store. Safe to call twice. */
  stop(): Promise<void>;
}

/**
 * Start a simulator inside the calling process for a test run: in memory, silent, on a free
 * loopback port unless `config` says otherwise. Reads no environment variables, so a test run
 * is not changed by the shell it happens to start in.
 */
export async function startSimulator(options: SimulatorOptions = {}): Promise<SimulatorHandle> {
  const config = parseConfig(
    {},
    {},
    {
      inMemory: true,
      logLevel: 'silent',
      port: 0,
      host: '127.0.0.1',
      ...options.config,
      ...(options.seed === undefined ? {} : { seed: options.seed }),
      ...(options.fixturesDir === undefined ? {} : { fixturesDir: options.fixturesDir }),
    },
  );
  const sim = await serveSimulator(config);
  const admin = `${sim.url}${ADMIN_PREFIX}`;
  return {
    url: sim.url,
    urls: {
      us: `${sim.url}${US_API}`,
      jp: `${sim.url}${JP_API}`,
      ...(config.regions.includes('eu') ? { eu: `${sim.url}${EU_API}` } : {}),
      ...(config.regions.includes('sg') ? { sg: `${sim.url}${SG_API}` } : {}),
      storage: config.storageHost
        ? `https://${config.storageHost}`
        : `${config.publicUrl ?? sim.url}${STORAGE_PREFIX}`,
      admin,
    },
    ...(sim.https ? { https: sim.https } : {}),
    control: new ControlClient(admin, config.adminToken ? { adminToken: config.adminToken } : {}),
    stop: () => sim.stop(),
  };
}
