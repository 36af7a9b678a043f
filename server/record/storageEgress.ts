import type { LookupFunction } from 'node:net';
import type { Logger } from 'pino';
import {
  type AddressCheck,
  AddressRefused,
  addressClass,
  guardedLookup,
  isPrivateAddress,
} from '../core/addressGuard.js';

/**
 * Where the recorder's S3 forwarding may connect (`--record --upstream live`): presigned URLs
 * name `*.amazonaws.com` hosts, and the recorder sends a client's part uploads and downloads
 * on to them. A name is only a name: one that resolves to loopback, the LAN or the cloud
 * metadata address would make the recorder a relay into this machine or its network. So the
 * name is resolved once through the address guard, a non-public address refused, and the
 * connection made to the address checked (no second resolution: no DNS rebinding).
 */
const publicOnly: AddressCheck = (address) =>
  isPrivateAddress(address) ? `${addressClass(address)}, not a public address` : undefined;

/** The `lookup` of every request the recorder forwards to an S3 host. */
export const s3Lookup: LookupFunction = guardedLookup(publicOnly);

/** Hosts whose refusal is logged already; bounded, so many names cannot grow it forever. */
const logged = new Set<string>();
const MAX_LOGGED = 1000;

/**
 * When `e` is the guard's refusal: log it (once per host, warn) and answer the client 502
 * through `answer` (the recorder's error form: S3 XML on these storage paths), saying what was
 * refused and why; true then. False for any other failure, which the recorder answers as an
 * upstream that did not answer.
 */
export function answeredRefusal(
  e: unknown,
  url: URL,
  logger: Logger,
  answer: (status: number, code: string, message: string) => void,
): boolean {
  if (!(e instanceof AddressRefused)) return false;
  if (!logged.has(url.hostname)) {
    if (logged.size >= MAX_LOGGED) logged.clear();
    logged.add(url.hostname);
    logger.warn(
      { host: url.hostname, why: e.message },
      'recorder refused to forward storage to this address',
    );
  }
  answer(
    502,
    'UPSTREAM_ADDRESS_REFUSED',
    `the recorder forwards storage requests to public addresses only, and ${e.message}: nothing was sent, nothing recorded`,
  );
  return true;
}
