import type { SpecIndex } from '../spec/openapi.js';

/** One generated request of the fuzz test, and what the generators are built from. */
export interface FuzzRequest {
  method: string;
  /** Path and query as sent on the wire, possibly with malformed percent-encoding. */
  path: string;
  headers: Record<string, string>;
  body?: string | Uint8Array;
  /** The whole request as bytes, sent as is (headers the client library would refuse). */
  raw?: string;
  /** What makes it hostile, for reports. */
  label?: string;
}

export interface FuzzContext {
  spec: SpecIndex;
  /** Mount prefix of the operation's surface, e.g. `/developer/api`, `/storage`, `/__admin`. */
  prefix: string;
  /** Authorization header values that pass (valid Basic, bearer tokens, the admin token). */
  authorizations: string[];
  /** Valid `X-Client-Id`/`X-Client-Api-Key` pairs. */
  apiKeys: { id: string; key: string }[];
  /** Valid path-and-query strings per operation id (e.g. live presigned URLs). */
  known?: Record<string, string[]>;
}
