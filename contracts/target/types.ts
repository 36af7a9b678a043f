/**
 * What a contract scenario may ask of the service under test. Scenarios are written once
 * against this interface; `sim`, `url` and `live` implement it (see ./index.ts).
 */

import type { ClientRequestArgs } from 'node:http';
import type { components } from '../../server/spec/admin-types.js';

/** Control API schemas (server/admin.openapi.yaml): arrangement input is typed from them. */
export type Schemas = components['schemas'];

/** How a request's connection is made (node:http's `createConnection` request option). */
export type Connect = NonNullable<ClientRequestArgs['createConnection']>;

export type TargetKind = 'sim' | 'url' | 'live';
export type Region = 'us' | 'jp' | 'eu' | 'sg';
type DeviceType = 'notepro' | 'notepins';

export interface AppCredentials {
  client_id: string;
  secret_key: string;
  api_key: string;
}

export interface DeviceRef {
  type: DeviceType;
  sn: string;
}

/** The binding states a scenario can ask for (seed spec §3.1, plus an unknown serial). */
export type DeviceState = 'boundOther' | 'unbound' | 'neverBound' | 'unknown';

/** A device the target provides, or why it cannot (the scenario is then skipped with it). */
export type DeviceOffer = { device: DeviceRef } | { skip: string };

/** Arranging state through the simulator's control API (absent on live). */
export interface Control {
  /** Base of the control API, e.g. http://127.0.0.1:4010/__admin */
  readonly admin: string;
  /** A new partner app in the target's region (fresh, so parallel runs never collide). */
  createApp(overrides?: Partial<Schemas['NewPartnerApp']>): Promise<AppCredentials>;
  putDevice(sn: string, state: Schemas['DeviceState']): Promise<void>;
  advanceClock(ms: number): Promise<void>;
  /** Adds a fault rule; resolves to its id. */
  addFault(rule: Schemas['FaultRule']): Promise<string>;
  deleteFault(id: string): Promise<void>;
  forceTranscription(id: string, status: Schemas['TranscriptionStatus'], message?: string): Promise<void>;
}

export interface Target {
  readonly kind: TargetKind;
  readonly region: Region;
  /** Partner API base URL, e.g. http://127.0.0.1:4010/developer/api */
  readonly api: string;
  /** Credentials of the app the scenarios act as. */
  readonly app: AppCredentials;
  /** The control API, or undefined when state cannot be arranged (live). */
  readonly control: Control | undefined;
  /** Whether scenarios that change real state (bind, unbind, sign) may run. */
  readonly mutationsAllowed: boolean;
  /** Unique per run; on live the configured test user. */
  readonly userId: string;
  /** An id unique to this run, for serials and user ids that must not collide. */
  uniqueId(label: string): string;
  /** A device in the given state: arranged on the simulator, from env serials on live. */
  device(state: DeviceState): Promise<DeviceOffer>;
  /** Let time pass: advances the simulated clock, or really waits on live. */
  wait(ms: number): Promise<void>;
  /**
   * How a request to `url` connects: through the simulator's proxy for a host it intercepts,
   * or directly (undefined; always on live).
   */
  connectionFor(url: string): Connect | undefined;
  /** Before each request: the client-side rate limit (live only). */
  throttle(): Promise<void>;
  /** The service answered 429: hold requests for its `Retry-After`; returns the wait in ms. */
  backOff(retryAfter: string | undefined): number;
  close(): Promise<void>;
}
