import type { Random } from '../core/random.js';

/**
 * A client's id is echoed only when it is this: printable, header-safe and short (what
 * UUIDs, ULIDs, W3C trace ids and the usual proxy ids look like). Anything else (too long,
 * spaces, quotes, control or non-ASCII characters) is never echoed into answers, journal or
 * logs: the request is still served, under an id of our own.
 */
const SAFE = /^[A-Za-z0-9._:@+=/-]{1,128}$/;

/**
 * `X-Request-Id` for every answer: the client's own when it is safe, else a fresh one. Fresh
 * ids are a prefix drawn once per process (so instances sharing a store differ) and a
 * counter: no random bytes and no formatting of a UUID per request.
 */
export class RequestIds {
  private readonly prefix: string;
  private n = 0;

  constructor(random: Random) {
    this.prefix = `sim-${random.hex(6)}-`;
  }

  of(sent: string | string[] | undefined): string {
    if (typeof sent === 'string' && SAFE.test(sent)) return sent;
    this.n++;
    return this.prefix + this.n.toString(36);
  }
}
