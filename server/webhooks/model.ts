import type { components } from '../spec/admin-types.js';

type S = components['schemas'];
export type WebhookEvent = S['WebhookEvent'];
export type WebhookPayload = S['WebhookPayload'];
export type NewWebhookEndpoint = S['NewWebhookEndpoint'];
export type WebhookEndpointChange = S['WebhookEndpointChange'];
export type WebhookEndpoint = S['WebhookEndpoint'];
export type CreatedWebhookEndpoint = S['CreatedWebhookEndpoint'];
export type WebhookDelivery = S['WebhookDelivery'];
export type WebhookAttempt = S['WebhookAttempt'];
export type WebhookFault = NonNullable<S['FaultRule']['webhook_fault']>;

/**
 * An endpoint as stored: the public view plus its secret and creation order. `payload` and
 * `name` may be missing on endpoints stored before they existed (the public view fills them).
 */
export interface EndpointRecord extends Omit<WebhookEndpoint, 'payload' | 'name'> {
  payload?: WebhookPayload;
  name?: string | null;
  secret: string;
  seq: number;
}

/** A delivery as stored (the log entry) with what its attempts are built from. */
export interface DeliveryRecord extends WebhookDelivery {
  created_ms: number;
  /** The app-clock instant of the next attempt, while one is due. */
  next_ms: number | null;
}

/**
 * One due attempt of a delivery: the outbox the dispatcher works through. Kept apart from the
 * log so finding what is due never reads finished deliveries; removed once the delivery is
 * settled. `claim_until` (real ms) is the lease of the instance sending it now.
 */
export interface OutboxItem {
  id: string;
  client_id: string;
  endpoint_id: string;
  attempt: number;
  due_ms: number;
  /** Order among items due at the same instant (creation order, fractions to slot one in). */
  seq: number;
  /** `out_of_order`: waiting for the endpoint's next event (due_ms is the fallback). */
  held?: boolean;
  claim_until?: number;
  claim_by?: string;
}

/** After attempt n fails, attempt n + 1 follows this long after it (app clock): 30 s … 24 h. */
export const RETRY_LADDER_MS = [30_000, 300_000, 1_800_000, 7_200_000, 86_400_000] as const;
export const MAX_ATTEMPTS = RETRY_LADDER_MS.length + 1;

/** The older docs page's names for the transcription events. */
export function legacyName(event: string): string {
  if (event === 'transcription.completed') return 'audio_transcribe.completed';
  if (event === 'transcription.failed') return 'audio_transcribe.failed';
  return event;
}
