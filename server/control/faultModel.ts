import type { components } from '../spec/admin-types.js';

export type FaultRule = components['schemas']['FaultRule'];
export type Fault = components['schemas']['Fault'];
export type FaultAction = NonNullable<FaultRule['action']>;
export type TranscriptionOutcome = NonNullable<FaultRule['transcription_outcome']>;
export type WebhookFaultKind = NonNullable<FaultRule['webhook_fault']>;
/** The pseudo-operation of rules that break webhook deliveries instead of a request. */
export const WEBHOOK_DELIVERY = 'webhookDelivery';

/** What a request offers to `match`: whatever the HTTP layer could tell about it. */
export interface FaultSubject {
  operation: string;
  client_id?: string | undefined;
  sn?: string | undefined;
  part_number?: number | undefined;
  user_id?: string | undefined;
  /** Path and query as received. */
  path: string;
}

/** The effect the HTTP layer carries out: a stored rule or an `X-Sim-Fault` header. */
export interface FaultEffect {
  /** Rule id, or `header` for the per-request header. */
  id: string;
  status?: number | undefined;
  body?: unknown;
  headers?: Record<string, string> | undefined;
  delay_ms?: number | undefined;
  action?: FaultAction | undefined;
  message?: string | undefined;
}

export interface StoredFault extends Fault {
  /** Creation order; the store does not keep insertion order across restarts. */
  seq: number;
}

/** Whether a rule's `match` accepts this request (no `match`: every request). */
export function matches(r: FaultRule, s: FaultSubject): boolean {
  const m = r.match;
  if (!m) return true;
  return (
    (m.client_id === undefined || m.client_id === s.client_id) &&
    (m.sn === undefined || m.sn.toUpperCase() === s.sn?.toUpperCase()) &&
    (m.part_number === undefined || m.part_number === s.part_number) &&
    (m.user_id === undefined || m.user_id === s.user_id) &&
    (m.path_contains === undefined || s.path.includes(m.path_contains))
  );
}

/** A rule as the control API shows it. */
export function publicView(r: StoredFault): Fault {
  const { seq: _seq, ...rest } = r;
  return rest;
}
