import { DEFAULT_REGIONS } from '../core/regions.js';
import type { Region } from '../domain/apps.js';
import { STORAGE_PREFIX } from '../http/apiPrefixes.js';
import { closedRegion, LIVE_HOSTS, LIVE_PREFIX, regionRoot } from '../redirect/hosts.js';

/**
 * Which host names the HTTPS listener and the proxy serve, and as what: the live hosts (the
 * redirect's own table, region by host), the S3-shaped storage host, and the simulator itself
 * (loopback names on its own port, the Android emulator's alias of the host machine, and the
 * names given with --tls-hosts). Anything else is not ours: the proxy refuses it.
 */
export type Route = { kind: 'live'; region: Region } | { kind: 'storage' } | { kind: 'self' };

/** Loopback, and 10.0.2.2: how the Android emulator reaches the machine it runs on. */
const LOOPBACK = ['localhost', '127.0.0.1', '::1'];
const EMULATOR_HOST = '10.0.2.2';

export interface InterceptOptions {
  /** `--storage-host`: presigned URLs name it; its paths are the storage routes'. */
  storageHost: string | undefined;
  /** `--tls-hosts`: more names the certificate covers and the proxy serves (e.g. a LAN address). */
  extraHosts: readonly string[];
  /** The interface the simulator binds, when it is a specific address. */
  bindHost: string;
  /** `--regions` (default us,jp): live hosts of other regions are refused as unresolvable. */
  regions?: readonly Region[] | undefined;
}

/** The table's settings as `serve` was given them. */
export const interceptOptionsOf = (config: {
  storageHost?: string | undefined;
  tlsHosts: readonly string[];
  host: string;
  regions: readonly Region[];
}): InterceptOptions => ({
  storageHost: config.storageHost,
  extraHosts: config.tlsHosts,
  bindHost: config.host,
  regions: config.regions,
});

const bare = (host: string): string =>
  host
    .replace(/^\[(.*)\]$/, '$1')
    .replace(/\.$/, '')
    .toLowerCase();

export class InterceptTable {
  private readonly self: Set<string>;
  private readonly extra: Set<string>;
  private readonly storage: string | undefined;
  /** The regions served (`--regions`). */
  readonly regions: readonly Region[];
  /** The live hosts of the regions served. */
  private readonly live: string[];
  /** The port the simulator listens on, once it does (loopback names are ours only there). */
  port = 0;

  constructor(opts: InterceptOptions) {
    this.storage = opts.storageHost === undefined ? undefined : bare(opts.storageHost);
    this.extra = new Set(opts.extraHosts.map(bare));
    this.regions = opts.regions ?? DEFAULT_REGIONS;
    this.live = Object.keys(LIVE_HOSTS).filter((h) => !closedRegion(h, this.regions));
    const bind = bare(opts.bindHost);
    this.self = new Set([...LOOPBACK, EMULATOR_HOST, ...(bind === '0.0.0.0' || bind === '::' ? [] : [bind])]);
  }

  /** Every name the leaf certificate must cover, loopback first (its common name). */
  get certNames(): string[] {
    const names = [...this.self, ...this.live, ...this.extra];
    if (this.storage) names.push(this.storage);
    return [...new Set(names)];
  }

  /**
   * The names served as the simulator wherever a client sends them (any port): what a client
   * that is not the simulator's own (the contract suite) sends through the proxy.
   */
  get interceptedHosts(): string[] {
    return [...new Set([...this.live, ...(this.storage ? [this.storage] : []), ...this.extra])];
  }

  private covered: Set<string> | undefined;

  /** Whether the certificate covers `name` (an SNI name a handshake asks for). */
  covers(name: string): boolean {
    this.covered ??= new Set(this.certNames);
    return this.covered.has(bare(name));
  }

  /**
   * What a proxy request (CONNECT or absolute URL) for `host:port` is served as, or undefined
   * when it is not ours. Decided on the name alone: nothing is ever resolved.
   */
  proxyRoute(host: string, port: number): Route | undefined {
    const h = bare(host);
    if (this.self.has(h)) return port === this.port ? { kind: 'self' } : undefined;
    if (this.unresolved(h)) return undefined;
    return this.nameRoute(h) ?? (this.extra.has(h) ? { kind: 'self' } : undefined);
  }

  /**
   * The region of a live host `--regions` leaves out (EU, SG: "Coming soon" on live, where
   * their names do not resolve): the proxy fails it as an unresolvable name, never looking it up.
   */
  unresolved(host: string): Region | undefined {
    return closedRegion(bare(host), this.regions);
  }

  /** What a request over TLS or inside a tunnel is served as, by its Host (any name not ours: itself). */
  hostRoute(host: string): Route {
    return this.nameRoute(bare(host)) ?? { kind: 'self' };
  }

  private nameRoute(h: string): Route | undefined {
    const region = LIVE_HOSTS[h];
    if (region) return { kind: 'live', region };
    if (h === this.storage) return { kind: 'storage' };
    return undefined;
  }

  /**
   * The simulator path of `path` on a host served as `route`: the partner API of a live host
   * under its region's prefix, as the redirect maps it (other paths on a live host, the
   * storage and docs paths of non-S3 URLs, keep theirs); the storage host's keys under the
   * storage routes.
   */
  static path(route: Route, path: string): string {
    if (route.kind === 'storage') return `${STORAGE_PREFIX}${path}`;
    if (route.kind === 'live' && (path === LIVE_PREFIX || path.startsWith(`${LIVE_PREFIX}/`)))
      return `${regionRoot(route.region)}${path}`;
    return path;
  }
}

/** The host name of a Host header or URL authority, without port or IPv6 brackets. */
export function hostName(authority: string): string {
  const m = /^(\[[^\]]*\]|[^:]*)/.exec(authority.trim());
  return bare(m?.[1] ?? '');
}
