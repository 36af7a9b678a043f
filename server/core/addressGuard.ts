import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { BlockList, isIP, type LookupFunction } from 'node:net';

/**
 * Where the simulator's own outbound connections may go: the one address guard of the
 * external-audio fetcher (transcription/externalAudio.ts), the webhook sender
 * (webhooks/egress.ts), the proxy's --proxy-passthrough (net/passThrough.ts) and the
 * recorder's S3 forwarding (record/storageEgress.ts), each with its own rule (an AddressCheck).
 * A host is resolved once per connection, every address checked, and the connection made to
 * the checked address: no second resolution that could differ (DNS rebinding). An address
 * literal never reaches `lookup` (Node connects to it directly), so callers check it with
 * `checkHost` first.
 */

/** Why `address` must not be reached, or undefined when it may. */
export type AddressCheck = (address: string) => string | undefined;

/** A refusal of the guard: its message names the host, the address and why. */
export class AddressRefused extends Error {
  override readonly name = 'AddressRefused';
}

function blockList(v4: [string, number][], v6: [string, number][]): BlockList {
  const list = new BlockList();
  for (const [net, bits] of v4) list.addSubnet(net, bits, 'ipv4');
  for (const [net, bits] of v6) list.addSubnet(net, bits, 'ipv6');
  return list;
}

const PRIVATE = blockList(
  [
    ['0.0.0.0', 8],
    ['10.0.0.0', 8],
    ['100.64.0.0', 10],
    ['127.0.0.0', 8],
    ['169.254.0.0', 16],
    ['172.16.0.0', 12],
    ['192.168.0.0', 16],
    ['198.18.0.0', 15],
    ['224.0.0.0', 4],
    ['240.0.0.0', 4],
  ],
  [
    ['::', 128],
    ['::1', 128],
    ['fc00::', 7],
    ['fe80::', 10],
    ['ff00::', 8],
  ],
);

/** Link-local, where cloud metadata services answer (and the metadata addresses outside it). */
const LINK_LOCAL = blockList(
  [
    ['169.254.0.0', 16],
    ['100.100.100.200', 32],
  ],
  [
    ['fe80::', 10],
    ['fd00:ec2::254', 128],
  ],
);

const LOOPBACK = blockList(
  [
    ['127.0.0.0', 8],
    ['0.0.0.0', 8],
  ],
  [
    ['::1', 128],
    ['::', 128],
  ],
);

/** An address as a URL or a resolver gives it: brackets gone, IPv4-mapped IPv6 as IPv4. */
export function plainAddress(host: string): string {
  const bare = host.replace(/^\[(.*)\]$/, '$1');
  return /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(bare)?.[1] ?? bare.toLowerCase();
}

function inList(list: BlockList, address: string): boolean {
  const a = plainAddress(address);
  const family = isIP(a);
  return family !== 0 && list.check(a, family === 4 ? 'ipv4' : 'ipv6');
}

/** Loopback, private, link-local, shared, multicast or unspecified (IPv4-mapped IPv6 as IPv4). */
export function isPrivateAddress(address: string): boolean {
  return isIP(plainAddress(address)) === 0 || inList(PRIVATE, address);
}

/** Link-local or a cloud metadata address. */
export const isLinkLocalAddress = (address: string): boolean => inList(LINK_LOCAL, address);

/** This machine by any loopback address, or the unspecified one (which reaches it too). */
export const isLoopbackAddress = (address: string): boolean => inList(LOOPBACK, address);

/** What kind of address `address` is, as a refusal names it. */
export function addressClass(address: string): string {
  if (isLinkLocalAddress(address)) return 'link-local (cloud metadata)';
  if (isLoopbackAddress(address)) return 'loopback (this machine)';
  return isPrivateAddress(address) ? 'private or reserved' : 'public';
}

/** The refusal of a URL's host when it is an address literal; undefined for a name. */
export function checkHost(hostname: string, check: AddressCheck): string | undefined {
  const address = plainAddress(hostname);
  if (isIP(address) === 0) return undefined;
  const why = check(address);
  return why === undefined ? undefined : `${hostname} is ${why}`;
}

/** A `lookup` for http.request: resolve, refuse any address `check` refuses, hand over the checked one. */
export function guardedLookup(check: AddressCheck): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, '', 4);
      const list = addresses as LookupAddress[];
      const bad = list.map((a) => ({ a, why: check(a.address) })).find((x) => x.why !== undefined);
      if (bad || list.length === 0)
        return callback(
          new AddressRefused(
            bad ? `${hostname} resolves to ${bad.a.address}, ${bad.why}` : `${hostname} resolves to nothing`,
          ),
          '',
          4,
        );
      const first = list[0]!;
      if ((options as { all?: boolean }).all)
        return (callback as (e: null, a: LookupAddress[]) => void)(null, list);
      callback(null, first.address, first.family);
    });
  };
}

/** Resolve `hostname` (every address) and return the first refusal; undefined when none, or when it does not resolve. */
export async function refusalOf(hostname: string, check: AddressCheck): Promise<string | undefined> {
  const literal = checkHost(hostname, check);
  if (literal !== undefined || isIP(plainAddress(hostname)) !== 0) return literal;
  const addresses = await new Promise<LookupAddress[]>((resolve) =>
    dnsLookup(hostname, { all: true }, (err, list) => resolve(err ? [] : list)),
  );
  for (const { address } of addresses) {
    const why = check(address);
    if (why !== undefined) return `${hostname} resolves to ${address}, ${why}`;
  }
  return undefined;
}
