import { SimError } from '../core/errors.js';
import type { components as AdminTypes } from '../spec/admin-types.js';
import type { components as ApiTypes } from '../spec/api-types.js';

/**
 * The device registry's record and the pure rules over it (no store, no HTTP). A serial that
 * is not in the registry has never been signed; a record exists from the moment it is signed.
 * `is_bind` and `bind_history` are derived from the record, never stored, so they cannot
 * disagree with the owner and the bind events.
 */

type Api = ApiTypes['schemas'];
type Admin = AdminTypes['schemas'];

export type DeviceType = Api['DeviceType'];

/** Only these prefixes are devices of this API (`880` notepin and `888` note exist, unsupported). */
const TYPE_BY_PREFIX: Readonly<Record<string, DeviceType>> = { '881': 'notepro', '882': 'notepins' };

/** The account a device is bound to: the `sub` of a user token and the app that minted it. */
export type DeviceOwner = Admin['DeviceOwner'];

export interface DeviceRecord {
  sn: string;
  type: DeviceType;
  /** Current owner; null when not bound. */
  owner: DeviceOwner | null;
  /**
   * Whether the device has left the never-bound state (was bound, or was put as unbound).
   * Needed because an unbound device may have an empty history (put through the control API).
   */
  released: boolean;
  /** Append-only bind events (`sub` of the binder), OLDEST first so a bind is a push. */
  bind_events: string[];
  /** The app whose partner sn-sign registered the serial, and when (instance clock): its bound. */
  signed_by?: string;
  signed_ms?: number;
}

/** What the binding query answers (openapi.yaml BindingResponse). */
export type Binding = Api['BindingResponse'];
export type BindAnswer = Api['BindAnswer'];

/** What the control API shows of a device (admin.openapi.yaml Device). */
export type DeviceView = Admin['Device'];

/**
 * Serials are compared case-insensitively and kept upper-case: real serials are, and the file
 * store names one file per serial, which must not collide on case-insensitive file systems.
 */
export const normalizeSerial = (sn: string): string => sn.toUpperCase();

export function typeOfSerial(sn: string): DeviceType | undefined {
  return TYPE_BY_PREFIX[sn.slice(0, 3)];
}

/**
 * Check a (type, sn) pair: the schema already refuses unsupported prefixes; this catches a
 * `type` that contradicts the prefix, as a 422 naming the `type` field at `loc`.
 */
export function checkType(sn: string, type: DeviceType | undefined, loc: (string | number)[]): DeviceType {
  const derived = typeOfSerial(sn);
  if (!derived)
    throw SimError.invalidField(
      [...loc.slice(0, -1), 'sn'],
      'Serial prefix must be 881 or 882',
      'value_error',
      sn,
    );
  if (type !== undefined && type !== derived) {
    throw SimError.invalidField(
      loc,
      `type ${type} contradicts the serial prefix ${sn.slice(0, 3)} (a ${derived} serial)`,
      'value_error',
      type,
    );
  }
  return derived;
}

export function isBindOf(rec: DeviceRecord): boolean | null {
  if (rec.owner) return true;
  return rec.released || rec.bind_events.length > 0 ? false : null;
}

export function bindingOf(rec: DeviceRecord): Binding {
  return { is_bind: isBindOf(rec), bind_history: rec.bind_events.toReversed() };
}

/** What bind and unbind answer: the device named as live names it, then its binding state. */
export function bindAnswerOf(rec: DeviceRecord): BindAnswer {
  return { type: rec.type, sn: rec.sn, ...bindingOf(rec) };
}

export function viewOf(rec: DeviceRecord): DeviceView {
  return { sn: rec.sn, type: rec.type, ...bindingOf(rec), owner: rec.owner, signed: true };
}

/**
 * How many bind events a device keeps (newest kept, older ones dropped). Apps bind after every
 * connect, so a busy device's history would otherwise grow without end. Documented in
 * docs/devices.md and
 * admin.openapi.yaml (`bind_history`, which refuses a longer one on PUT).
 */
export const BIND_HISTORY_MAX = 1000;

/** A freshly signed serial: `is_bind: null`, no history. */
export function signedDevice(sn: string, type: DeviceType): DeviceRecord {
  return { sn, type, owner: null, released: false, bind_events: [] };
}

/**
 * Bind to `caller`. The same owner binding again is allowed and recorded (apps bind after
 * every connect, which is why live histories repeat); another account is refused.
 */
export function bound(rec: DeviceRecord, caller: DeviceOwner): DeviceRecord {
  if (rec.owner && rec.owner.sub !== caller.sub) {
    throw SimError.forbidden(
      'DEVICE_BOUND',
      'The device is bound to another account; its owner must unbind it first.',
    );
  }
  const events = [...rec.bind_events.slice(-(BIND_HISTORY_MAX - 1)), caller.sub];
  return { ...rec, owner: caller, released: true, bind_events: events };
}

/**
 * Release the binding. Idempotent: an unbound device stays unbound and a never-bound one stays
 * `null` (nothing was released). Only the owner may unbind; the history is never touched.
 */
export function unbound(rec: DeviceRecord, caller: DeviceOwner): DeviceRecord {
  if (!rec.owner) return rec;
  if (rec.owner.sub !== caller.sub) {
    throw SimError.forbidden('DEVICE_BOUND', 'The device is bound to another account.');
  }
  return { ...rec, owner: null, released: true };
}
