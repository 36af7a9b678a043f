/**
 * Every collection the simulator keeps, named once with what a backend needs to know about
 * it: the fields looked up by `findBy`/`deleteBy` (a PostgreSQL store indexes them; dotted
 * paths reach into nested objects), whether every instance mirrors it (store.ts,
 * MirroredCollection), and whether it must survive a restart of the embedded store.
 */
export interface CollectionSpec {
  /** Fields looked up with findBy/deleteBy: `client_id`, `owner.client_id`… */
  readonly indexes: readonly string[];
  /** Small and read on every request: mirrored in each instance, read with `peek`. */
  readonly mirrored: boolean;
  /** False: the embedded store keeps it in memory only (a restart forgets it, as a gateway would). */
  readonly durable: boolean;
}

const spec = (s: Partial<CollectionSpec> = {}): CollectionSpec => ({
  indexes: s.indexes ?? [],
  mirrored: s.mirrored ?? false,
  durable: s.durable ?? true,
});

export const COLLECTIONS = {
  /** The instance record (master secret, generation, instance clock): one record `instance`. */
  meta: spec({ mirrored: true }),
  apps: spec({ mirrored: true }),
  clocks: spec({ mirrored: true }),
  faults: spec({ mirrored: true, indexes: ['match.client_id'] }),
  devices: spec({ indexes: ['owner.client_id', 'signed_by'] }),
  /** The device side of recorders (radio, pairing, recordings), one per serial. */
  recorders: spec({ indexes: ['range'] }),
  /** Uploaded bytes of recordings, `<sn>.<sessionId>`. */
  recorderAudio: spec(),
  /** The simulator's serial-signing RSA keys (sn-sign), one per region, made once. */
  sdkSigningKeys: spec(),
  /** Phones of the device protocol (SDK sessions), per app. */
  phones: spec({ indexes: ['client_id'] }),
  refreshTokens: spec({ indexes: ['client_id'] }),
  uploads: spec({ indexes: ['client_id'] }),
  uploadParts: spec({ indexes: ['upload_id', 'client_id'] }),
  files: spec({ indexes: ['client_id'] }),
  transcriptions: spec({ indexes: ['client_id'] }),
  transcripts: spec(),
  /** Webhook endpoints (secrets included): asked on submission whether an app wants events. */
  webhookEndpoints: spec({ mirrored: true, indexes: ['client_id'] }),
  /** The delivery log, one record per delivery with its attempts. */
  webhookDeliveries: spec({ indexes: ['client_id'] }),
  /** Due attempts of unsettled deliveries (webhooks/model.ts OutboxItem). */
  webhookOutbox: spec({ indexes: ['client_id', 'endpoint_id'] }),
  /** Transcription tasks whose final event is still to be sent. */
  taskWatches: spec({ indexes: ['client_id'] }),
  /** What a speech engine heard, by audio MD5 and engine settings (transcription/engineWork.ts). */
  engineResults: spec(),
  /** Rate-limit windows, one record per client id and limit group. */
  rateWindows: spec({ durable: false, indexes: ['client_id'] }),
} as const satisfies Record<string, CollectionSpec>;

/** The spec of a collection; an unknown name is a programming error, not a request's fault. */
export function collectionSpec(name: string): CollectionSpec {
  const s = (COLLECTIONS as Record<string, CollectionSpec>)[name];
  if (!s) throw new Error(`collection ${name} is not declared in store/collections.ts`);
  return s;
}

/** The value of a (dotted) indexed field of a record, as the text a backend compares. */
export function indexValue(record: unknown, field: string): string | undefined {
  let v: unknown = record;
  for (const part of field.split('.')) {
    if (v === null || typeof v !== 'object') return undefined;
    v = (v as Record<string, unknown>)[part];
  }
  return typeof v === 'string' ? v : typeof v === 'number' ? String(v) : undefined;
}
