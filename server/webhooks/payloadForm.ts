import type { WebhookPayload } from './model.js';

/**
 * A transcription event's `data` as the endpoint's `payload` form reads it. Events are emitted
 * once, in the poll's form (`{transcription_id, status, data, message?}`, taskBodies.ts), and
 * each endpoint's delivery is shaped here, so both forms come from one source.
 *
 * `docs`: the docs' embedded-SDK webhooks page has its Node receiver read
 * `data.transcriptionId`, and its events table sends a reader of `transcription.failed` to an
 * `error` field; no page shows a whole payload, so the rest (`status`, the result under
 * `data`) is kept as the poll has it. `poll`: the simulator's earlier form, unchanged.
 * Device events and anything else pass through as they are.
 */
export function shapePayload(form: WebhookPayload | undefined, event: string, data: unknown): unknown {
  if (form === 'poll' || !event.startsWith('transcription.') || !isObject(data)) return data;
  const { transcription_id, status, data: result, message, ...rest } = data;
  const failed = event === 'transcription.failed';
  return {
    transcriptionId: transcription_id,
    status,
    ...(failed ? { error: message ?? 'Transcription failed.' } : { data: result }),
    ...rest,
  };
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
