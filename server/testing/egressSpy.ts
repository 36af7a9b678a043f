import { createRequire, syncBuiltinESMExports } from 'node:module';
import net from 'node:net';
import { isLoopbackAddress } from '../core/addressGuard.js';

// The CommonJS objects: what Node's own connect and the guard's ESM import both read.
const dns = createRequire(import.meta.url)('node:dns') as typeof import('node:dns');

type Callback = (err: Error | null, address: unknown, family?: number) => void;

/** What an egress test saw: names looked up, and the non-loopback addresses it stopped. */
export interface EgressSeen {
  lookups: string[];
  /** Connections that were about to leave loopback: stopped before any packet went out. */
  blocked: string[];
}

const asList = (address: unknown, family?: number): { address: string; family?: number | undefined }[] =>
  Array.isArray(address) ? address : [{ address: String(address), family }];

/**
 * Run `fn` with a resolver stub and a wall round loopback, so a test can aim code at the cloud
 * metadata address, or at a name resolving to it, and see the refusal, without any
 * connection leaving the machine even when the code under test does not refuse (the test
 * then fails on `blocked`, not on a real connection). `names` maps host names to the address
 * the stub resolves them to; `localhost` resolves as usual; any other name fails with
 * ENOTFOUND without a DNS query.
 */
export async function withEgressSpy(
  names: Record<string, string>,
  fn: () => Promise<void>,
): Promise<EgressSeen> {
  const seen: EgressSeen = { lookups: [], blocked: [] };
  const lookup = dns.lookup;
  const connect = net.Socket.prototype.connect;
  const stub = (host: string, options: unknown, cb?: Callback) => {
    const callback = (typeof options === 'function' ? options : cb) as Callback;
    const all = typeof options === 'object' && options !== null && (options as { all?: boolean }).all;
    seen.lookups.push(host);
    const address = names[host];
    if (address === undefined && host !== 'localhost')
      return process.nextTick(() =>
        callback(Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' }), ''),
      );
    if (address === undefined) return (lookup as (...a: unknown[]) => void)(host, options, cb);
    const family = net.isIP(address);
    process.nextTick(() => (all ? callback(null, [{ address, family }]) : callback(null, address, family)));
  };
  net.Socket.prototype.connect = function (this: net.Socket, ...args: unknown[]) {
    // net.connect hands over its normalized [options, callback] pair.
    const opts = (Array.isArray(args[0]) ? args[0][0] : args[0]) as {
      host?: string;
      port?: number;
      lookup?: typeof stub;
    };
    if (typeof opts !== 'object' || opts === null || opts.host === undefined)
      return (connect as (...a: unknown[]) => net.Socket).apply(this, args);
    if (net.isIP(opts.host) !== 0 && !isLoopbackAddress(opts.host)) {
      seen.blocked.push(`${opts.host}:${opts.port}`);
      process.nextTick(() => this.destroy(new Error(`test wall: ${opts.host} is not loopback`)));
      return this;
    }
    // Whatever resolver the code chose, its answer is checked before Node connects to it.
    const inner = opts.lookup ?? stub;
    opts.lookup = (host, options, cb) =>
      inner(host, options, (err, address, family) => {
        if (err) return cb?.(err, address, family);
        const out = asList(address, family).find((a) => !isLoopbackAddress(a.address));
        if (!out) return cb?.(null, address, family);
        seen.blocked.push(`${out.address}:${opts.port}`);
        cb?.(new Error(`test wall: ${host} resolved to ${out.address}, not loopback`), '', 4);
      });
    return (connect as (...a: unknown[]) => net.Socket).apply(this, args);
  } as typeof connect;
  dns.lookup = stub as unknown as typeof dns.lookup;
  syncBuiltinESMExports();
  try {
    await fn();
  } finally {
    net.Socket.prototype.connect = connect;
    dns.lookup = lookup;
    syncBuiltinESMExports();
  }
  return seen;
}
