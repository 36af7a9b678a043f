import { SimError } from '../core/errors.js';
import type { Collection } from '../store/store.js';
import type { PhoneRecord } from './phoneModel.js';

/** An unconnected phone this old (app clock) is taken for one a finished job left behind. */
const STALE_PHONE_MS = 3_600_000;

/**
 * Room for one more phone of `clientId` under `cap` (0: no cap). A CI job that dies leaves its
 * phones behind, so at the cap the oldest phone that is not connected and was made an hour
 * or more ago (on the app's clock) is forgotten; when none is, the new one is refused with
 * 409 TOO_MANY_PHONES naming the way out. Reads the app's phones (at most `cap`), on a call
 * that starts an SDK session, never on the calls that follow.
 */
export async function makeRoomForPhone(
  phones: Collection<PhoneRecord>,
  clientId: string,
  cap: number,
  now: number,
): Promise<void> {
  if (cap <= 0) return;
  const held = await phones.findBy('client_id', clientId);
  if (held.length < cap) return;
  const stale = held
    .filter((p) => p.connection === null && (p.created_ms ?? 0) <= now - STALE_PHONE_MS)
    .sort((a, b) => (a.created_ms ?? 0) - (b.created_ms ?? 0));
  const excess = held.length - cap + 1;
  if (stale.length >= excess) {
    for (const p of stale.slice(0, excess)) await phones.delete(p.phone_id);
    return;
  }
  throw SimError.conflict(
    'TOO_MANY_PHONES',
    `App ${clientId} holds ${held.length} phones (--phones-per-app ${cap}): end one with ` +
      'DELETE /__device/phones/{phone_id} or reset the app (POST /__admin/reset).',
  );
}
