import type { components } from '../spec/api-types.js';
import { send } from './http.js';

/**
 * A reference device-lock recovery helper, as a partner app would write it against the
 * binding query. It only depends on the generated API types, never on simulator internals.
 *
 * The rules (service spec §1, live notes "Recovery flow"): recovery applies only when
 * `is_bind` is not `true`; `bind_history` has one entry per bind event, so it is
 * de-duplicated (keeping newest-first order) and bounded before each id is tried with the SDK.
 */
export type BindingResponse = components['schemas']['BindingResponse'];
export type DeviceType = components['schemas']['DeviceType'];

const DEFAULT_MAX_CANDIDATES = 10;

export type RecoveryPlan =
  /** Bound to an account: only its owner can release it. */
  | { action: 'refuse'; message: 'owner must unbind first' }
  /** Nothing to try: `is_bind` is `false`/`null` and the history is empty. */
  | { action: 'none'; message: 'no bind history' }
  /** Try these accounts, newest first; `omitted` distinct ids were cut by the bound. */
  | { action: 'try'; candidates: string[]; omitted: number };

export interface RecoveryOptions {
  /** Most accounts to try (default 10). */
  maxCandidates?: number;
}

export function planRecovery(binding: BindingResponse, options: RecoveryOptions = {}): RecoveryPlan {
  const max = options.maxCandidates ?? DEFAULT_MAX_CANDIDATES;
  if (!Number.isInteger(max) || max < 1) throw new RangeError('maxCandidates must be a positive integer');
  if (binding.is_bind === true) return { action: 'refuse', message: 'owner must unbind first' };
  const distinct = [...new Set(binding.bind_history)];
  if (distinct.length === 0) return { action: 'none', message: 'no bind history' };
  return { action: 'try', candidates: distinct.slice(0, max), omitted: Math.max(0, distinct.length - max) };
}

export type RecoveryOutcome =
  | { ok: true; account: string; tried: number }
  | { ok: false; message: string; tried: number };

/**
 * Walk a plan: `attempt` stands for the SDK's local unlock with one account's key (derived
 * from its `sub`) and says whether the device accepted it.
 */
export async function runRecovery(
  plan: RecoveryPlan,
  attempt: (account: string) => Promise<boolean> | boolean,
): Promise<RecoveryOutcome> {
  if (plan.action !== 'try') return { ok: false, message: plan.message, tried: 0 };
  let tried = 0;
  for (const account of plan.candidates) {
    tried++;
    if (await attempt(account)) return { ok: true, account, tried };
  }
  return { ok: false, message: 'none of the previous accounts matched', tried };
}

/** The device type the API expects for a serial: `881` → notepro, `882` → notepins. */
export function deviceTypeOf(sn: string): DeviceType {
  if (sn.startsWith('881')) return 'notepro';
  if (sn.startsWith('882')) return 'notepins';
  throw new Error(`unsupported device serial ${sn}: only 881 (notepro) and 882 (notepins) prefixes`);
}

/**
 * Query the binding of a serial with a user token. `null` is the bare 404: the serial was
 * never signed (sign it with the SDK first); any other failure throws a PartnerApiError.
 */
export async function fetchBinding(
  baseUrl: string,
  userToken: string,
  sn: string,
  type: DeviceType = deviceTypeOf(sn),
): Promise<BindingResponse | null> {
  const url = `${baseUrl}/open/partner/sdk/binding?${new URLSearchParams({ type, sn })}`;
  const r = await send(
    'getDeviceBinding',
    url,
    { headers: { authorization: `Bearer ${userToken}` } },
    [200, 404],
  );
  return r.status === 404 ? null : (r.body as BindingResponse);
}
