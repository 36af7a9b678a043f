import type { Request, Response } from 'express';
import type { PartnerApp, Region } from '../domain/apps.js';
import type { TokenClaims } from '../domain/tokens.js';
import type { Services } from '../services.js';
import type { operations as AdminOperations } from '../spec/admin-types.js';
import type { operations as ApiOperations } from '../spec/api-types.js';
import type { operations as DeviceOperations } from '../spec/device-types.js';
import type { OperationInfo } from '../spec/openapi.js';

/**
 * Handler types derived from the generated spec types (server/spec/*-types.ts, produced by
 * `npm run gen:types` from the YAML): a handler's body, query, params and 2xx replies are
 * checked against openapi.yaml at compile time, so no field is described twice by hand.
 */
type AllOperations = ApiOperations & AdminOperations & DeviceOperations;
export type OpId = keyof AllOperations;

type MediaBody<T> = T extends { content: infer C }
  ? C extends { 'application/json': infer B }
    ? B
    : C extends { 'application/x-www-form-urlencoded': infer B }
      ? B
      : unknown
  : undefined;

type ReqBody<O extends OpId> = AllOperations[O] extends { requestBody?: infer RB }
  ? MediaBody<NonNullable<RB>>
  : undefined;

type QueryOf<O extends OpId> = AllOperations[O] extends { parameters: { query?: infer Q } }
  ? NonNullable<Q>
  : Record<string, never>;

type PathOf<O extends OpId> = AllOperations[O] extends { parameters: { path?: infer P } }
  ? NonNullable<P>
  : Record<string, never>;

type Responses<O extends OpId> = AllOperations[O]['responses'];
type Success = 200 | 201 | 202 | 204 | 206;

/** A successful answer of operation O: one of its declared 2xx statuses with that body. */
type Reply<O extends OpId> = {
  [S in keyof Responses<O> & Success]: {
    status: S;
    body?: MediaBody<Responses<O>[S]>;
    headers?: Record<string, string>;
    /** What was accepted but ignored: sent as `X-Sim-Warning` and kept in the journal. */
    warnings?: string[];
  };
}[keyof Responses<O> & Success];

/** Who the caller is, as far as the operation's security requirement established. */
export interface AuthInfo {
  app?: PartnerApp;
  partner?: TokenClaims;
  user?: TokenClaims;
}

export interface OpContext<O extends OpId> {
  req: Request;
  res: Response;
  op: OperationInfo;
  region: Region;
  auth: AuthInfo;
  services: Services;
  body: ReqBody<O>;
  query: QueryOf<O>;
  params: PathOf<O>;
  /** Base URL clients reach this instance at (config --public-url, else from the request). */
  publicUrl: string;
}

/** A handler either returns its reply or (for streams) sends it itself and returns nothing. */
export type Handler<O extends OpId> = (
  ctx: OpContext<O>,
) => Promise<Reply<O> | undefined> | Reply<O> | undefined;

export type Handlers = { [O in OpId]?: Handler<O> };

/**
 * An answer's changes, decided before its handler runs and applied at the single send point
 * (http/send.ts), whoever writes the answer (the handler's reply or the error handler).
 */
export interface AnswerEffect {
  /** `malformed` fault: the body arrives cut in half, with this status when the rule gives one. */
  truncate?: { status: number | undefined };
  /** `wrong_etag` fault: the ETag header names other bytes. */
  wrongEtag?: boolean;
  /** `--break-response`: this field (dotted path) of a JSON body, or element of an S3 error, left out. */
  dropField?: string;
}

/** The three surfaces: partner API, storage host, control API (`/__admin`). */
export type Surface = 'api' | 'storage' | 'admin' | 'device';

/** Per-request facts the layers share, kept on res.locals.sim. */
export interface SimLocals {
  region: Region;
  op?: OperationInfo;
  auth?: AuthInfo;
  /** Which surface answered: decides JSON or S3 XML errors. */
  surface: Surface;
  startedAt: number;
  /**
   * Set when a fault rule or an X-Sim-Fault header applied; `shaped` when it decided the
   * answer (status, body, action), which is then deliberate and never validated.
   */
  fault?: { id: string; action?: string | undefined; shaped: boolean };
  /**
   * Set when an app's documented quirk switch made this answer differ from the spec on
   * purpose (`etag_quotes: strip`): like a fault's answer, deliberate and never validated.
   */
  quirk?: string;
  /** What the send point changes in the answer; decided before the handler ran. */
  effect?: AnswerEffect;
  /** Warnings of the reply (X-Sim-Warning), for the journal entry. */
  warnings?: string[];
  /** `X-Request-Id` of this answer (http/requestId.ts): the client's when safe, else ours. */
  requestId?: string;
  /**
   * Storage host: the app owning the upload or file the URL names (null: none), once looked
   * up; fault matching and the journal both ask, the store is read once.
   */
  storageOwner?: string | null;
  /**
   * The body of a non-2xx answer as it was sent (a reference, no copy), for the journal's
   * bounded, redacted `response_excerpt`. Set where such answers are sent.
   */
  answer?: unknown;
}

export function simLocals(res: Response): SimLocals {
  const l = res.locals as { sim?: SimLocals };
  l.sim ??= { region: 'us', surface: 'api', startedAt: performance.now() };
  return l.sim;
}
