import { SimError } from '../core/errors.js';
import type { FaultAction, FaultEffect } from './faults.js';

export const FAULT_HEADER = 'x-sim-fault';

const ACTIONS: readonly FaultAction[] = ['reset', 'hang', 'malformed', 'wrong_etag'];

/**
 * The per-request form of a fault, for clients that can add a header but not call the
 * control API:
 *
 *     X-Sim-Fault: key=value[;key=value...]      (`,` also separates)
 *
 * keys: `status` (200–599; a 1xx is no final answer), `delay_ms` (0–600000), `action` (reset | hang | malformed |
 * wrong_etag), `retry_after` (seconds, sent as `Retry-After`; needs `status`), `message`
 * (text of the error body). Examples: `status=503`, `delay_ms=200`, `action=reset`,
 * `status=429;retry_after=2`, `delay_ms=150;status=502`.
 */
export function parseFaultHeader(raw: string, operation: string, header = FAULT_HEADER): FaultEffect {
  const bad = (msg: string) => SimError.invalidField(['header', header], msg, 'value_error', raw);
  const effect: FaultEffect = { id: 'header' };
  const int = (key: string, v: string, min: number, max: number): number => {
    const n = Number(v);
    if (!/^\d+$/.test(v) || n < min || n > max) throw bad(`${key} must be a whole number in ${min}–${max}`);
    return n;
  };
  let retryAfter: number | undefined;
  const pairs = raw
    .split(/[;,]/)
    .map((p) => p.trim())
    .filter(Boolean);
  if (pairs.length === 0) throw bad('Empty; expected key=value pairs such as status=503');
  for (const pair of pairs) {
    const eq = pair.indexOf('=');
    if (eq < 1) throw bad(`Expected key=value, got "${pair}"`);
    const key = pair.slice(0, eq).trim().toLowerCase();
    const value = pair.slice(eq + 1).trim();
    switch (key) {
      case 'status':
        effect.status = int(key, value, 200, 599);
        break;
      case 'delay_ms':
        effect.delay_ms = int(key, value, 0, 600_000);
        break;
      case 'retry_after':
        retryAfter = int(key, value, 0, 86_400);
        break;
      case 'action':
        if (!ACTIONS.includes(value as FaultAction)) throw bad(`action must be one of ${ACTIONS.join(', ')}`);
        effect.action = value as FaultAction;
        break;
      case 'message':
        effect.message = value;
        break;
      default:
        throw bad(`Unknown key "${key}"; use status, delay_ms, action, retry_after or message`);
    }
  }
  if (retryAfter !== undefined) {
    if (effect.status === undefined) throw bad('retry_after needs status');
    effect.headers = { 'Retry-After': String(retryAfter) };
  }
  if (effect.action === 'wrong_etag' && operation !== 'uploadPart')
    throw bad('action=wrong_etag applies to uploadPart only');
  if (effect.action && effect.action !== 'malformed' && effect.status !== undefined)
    throw bad(`action=${effect.action} sends no status of its own`);
  if (effect.status === undefined && effect.delay_ms === undefined && effect.action === undefined)
    throw bad('Give status, delay_ms or action');
  return effect;
}

/**
 * Prism's `Prefer: code=503` (also `Prefer: code=503, dynamic=true`: only `code` is taken) as
 * the fault header `status=503`, so a client written against Prism works unchanged. Other
 * preferences (`return=minimal`, RFC 7240) are no fault: undefined.
 */
export function preferredFault(prefer: string, operation: string): FaultEffect | undefined {
  const code = /(?:^|[,;])\s*code\s*=\s*"?([^,;"\s]*)"?/i.exec(prefer)?.[1];
  if (code === undefined) return undefined;
  return { ...parseFaultHeader(`status=${code}`, operation, 'prefer'), id: 'prefer' };
}
