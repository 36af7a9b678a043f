import type { LookupFunction } from 'node:net';
import { networkInterfaces } from 'node:os';
import {
  type AddressCheck,
  checkHost,
  guardedLookup,
  isLinkLocalAddress,
  isLoopbackAddress,
  isPrivateAddress,
  plainAddress,
  refusalOf,
} from '../core/addressGuard.js';

/**
 * `--webhook-egress`: where webhook deliveries may go. Always refused, whatever the rule: the
 * simulator's own listening address and port (any path: a delivery must not drive its control
 * API nor read its answers into the delivery log) and link-local addresses (cloud metadata).
 * `local-and-public` (default) allows everything else, loopback receivers included (the main
 * use); `public` only public addresses; a list of host names only those hosts.
 */
export type EgressRule = 'local-and-public' | 'public' | { hosts: string[] };

/** The `--webhook-egress` value: a keyword, or a comma list of host names. */
export function parseEgress(raw: string): EgressRule {
  const v = raw.trim().toLowerCase();
  if (v === 'local-and-public' || v === 'public') return v;
  const hosts = v
    .split(',')
    .map((h) => plainAddress(h.trim()))
    .filter(Boolean);
  const bad = hosts.find((h) => !/^[a-z0-9_.:-]+$/.test(h));
  if (hosts.length === 0 || bad !== undefined)
    throw new Error(
      `expected local-and-public, public or a comma list of host names, got ${JSON.stringify(raw)}`,
    );
  return { hosts };
}

export interface ListeningAddress {
  address: string;
  port: number;
}

const portOf = (url: URL): number => Number(url.port) || (url.protocol === 'https:' ? 443 : 80);

/** Addresses of this machine's interfaces: what a listener on 0.0.0.0 or :: answers on. */
function localAddresses(): Set<string> {
  const out = new Set<string>();
  for (const list of Object.values(networkInterfaces()))
    for (const i of list ?? []) out.add(plainAddress(i.address));
  return out;
}

export class WebhookEgress {
  constructor(
    private readonly rule: EgressRule,
    /** Where the simulator listens now (none before it listens, or when embedded without a port). */
    private readonly listening: () => ListeningAddress[],
  ) {}

  /** Why a delivery to `url` is refused before any connection; undefined when it may be tried. */
  async refusal(url: string): Promise<string | undefined> {
    const target = new URL(url);
    return this.byName(target) ?? (await refusalOf(target.hostname, this.check(portOf(target))));
  }

  /** For one delivery: a refusal known without resolving, else the lookup that checks each address. */
  forDelivery(url: string): { refused: string } | { lookup: LookupFunction } {
    const target = new URL(url);
    const check = this.check(portOf(target));
    const refused = this.byName(target) ?? checkHost(target.hostname, check);
    return refused !== undefined ? { refused } : { lookup: guardedLookup(check) };
  }

  private byName(target: URL): string | undefined {
    if (typeof this.rule !== 'object') return undefined;
    const host = plainAddress(target.hostname);
    return this.rule.hosts.includes(host)
      ? undefined
      : `${target.hostname} is not one of the hosts --webhook-egress allows (${this.rule.hosts.join(', ')})`;
  }

  private check(port: number): AddressCheck {
    return (address) => {
      if (this.isSelf(address, port))
        return `the simulator's own listening address (port ${port}): a webhook may not call the simulator itself`;
      if (isLinkLocalAddress(address))
        return 'a link-local address, where cloud metadata services answer: never a webhook receiver';
      if (this.rule === 'public' && isPrivateAddress(address))
        return 'not a public address (--webhook-egress public)';
      return undefined;
    };
  }

  private isSelf(address: string, port: number): boolean {
    const a = plainAddress(address);
    let local: Set<string> | undefined;
    for (const l of this.listening()) {
      if (l.port !== port) continue;
      const bound = plainAddress(l.address);
      // The unspecified address as a destination reaches this machine's loopback.
      if (a === bound || (isLoopbackAddress(a) && !/^127\.|^::1$/.test(a))) return true;
      if (bound === '0.0.0.0' || bound === '::') {
        local ??= localAddresses();
        if (isLoopbackAddress(a) || local.has(a)) return true;
      }
    }
    return false;
  }
}
