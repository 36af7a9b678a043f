import type { Request, Response } from 'express';
import { toIso } from '../core/clock.js';
import { type SimLocals, type Surface, simLocals } from '../http/types.js';
import type { Services } from '../services.js';
import type { DeferredEntry, JournalEntry } from '../store/store.js';
import { boundEntry, retainedHeaders, retainedUrl, summarizeAnswer, summarizeBody } from './entryBounds.js';
import { journalOwner, requestOwner } from './owner.js';
import { redactHeaders, scrub } from './redact.js';
import {
  detail,
  errorCodeOf,
  type LineFacts,
  type LineLevel,
  levelOf,
  lineOf,
  readableLine,
} from './requestLine.js';
import type { TrafficSummary } from './trafficSummary.js';

/** How an answer ended, for its journal entry and log line (a fault may have cut it). */
export function outcome(res: Response): { status: number; error?: string } {
  if (res.writableFinished) return { status: res.statusCode };
  const fault = simLocals(res).fault;
  if (res.headersSent) return { status: res.statusCode, error: 'response cut short: connection closed' };
  if (fault?.action === 'reset') return { status: 0, error: `connection reset by fault ${fault.id}` };
  if (fault?.action === 'hang')
    return { status: 0, error: `no response (hang fault ${fault.id}); connection closed` };
  return { status: 0, error: 'connection closed before a response was sent' };
}

/** A recording's own fields, as a rough count of bytes. */
const RECORDING_OVERHEAD = 512;

/** What every recording of one recorder shares. */
export interface RecorderContext {
  services: Services;
  logger: Services['deps']['logger'];
  /** Per-request lines at a level by the answer's status (`levelOf`); PARTNER_SIM_ACCESS_LOG=off: at debug. */
  byStatus: boolean;
  summary: TrafficSummary;
  /** Writes one readable line per request (a terminal), instead of a JSON log object. */
  readable: Services['deps']['requestLine'];
}

/**
 * One request on its way to the journal, then (fields filled in, the request and response let
 * go) its deferred journal entry: one object per request instead of a closure per step, since
 * garbage collection was the largest cost of serving a binding query after the socket writes.
 */
export class Recording implements DeferredEntry {
  recorded = false;
  operation: string | null = null;
  status = 0;
  client_id: string | null = null;
  method = '';
  private originalUrl = '';
  private headers: Request['headers'] = {};
  private latencyMs = 0;
  private error: string | undefined;
  unverified = false;
  private body: ReturnType<typeof summarizeBody>;
  private region: SimLocals['region'] | undefined;
  private faultId: string | null = null;
  private warnings: string[] | undefined;
  private answer: unknown;
  private requestId: string | undefined;
  private errorCode: string | undefined;
  /** The surface a log line names: the journal's, or the device protocol, or 'other' (docs, pages). */
  private lineSurface: string = 'other';

  constructor(
    private readonly ctx: RecorderContext,
    private req: Request | undefined,
    private res: Response | undefined,
    private readonly surface: Surface | undefined,
    private readonly receivedMs: number,
    private readonly started: number,
  ) {}

  /** Record once: looks up the owner first (only a storage request not yet looked up waits for the store). */
  recordOwned(o: { status: number; error?: string }): Promise<void> | undefined {
    this.recorded = true;
    const found =
      this.surface === 'admin' ? undefined : requestOwner(this.ctx.services, this.req!, this.res!);
    return found instanceof Promise ? found.then((id) => this.record(o, id)) : this.record(o, found);
  }

  /** A failed recording is logged, never thrown: serving matters more than recording. */
  failed(e: unknown, path = this.originalUrl || this.req?.originalUrl || ''): void {
    try {
      this.ctx.logger.error({ err: e, path: scrub(path) }, 'request not recorded');
    } catch {
      // The logger itself failed: nothing left to tell.
    }
  }

  private record({ status, error }: { status: number; error?: string }, found: string | undefined) {
    const req = this.req!;
    const res = this.res!;
    const sim = simLocals(res);
    const { surface } = this;
    this.latencyMs = Math.round((performance.now() - this.started) * 100) / 100;
    const owner = surface === 'admin' ? {} : journalOwner(this.ctx.services, found, req, res, status);
    this.status = status;
    this.error = error;
    this.client_id = owner.clientId ?? null;
    this.unverified = owner.unverified === true;
    this.method = req.method;
    // Bounded now (entryBounds.ts): whatever the request sent, an entry kept until someone
    // lists it holds a few KiB. Parsed bodies are summarised now: keeping them until the entry
    // is built could hold megabytes per entry. The rest is built into text later.
    this.originalUrl = retainedUrl(req.originalUrl);
    this.headers = retainedHeaders(req);
    this.body = summarizeBody(req.body, req.headers);
    this.operation = sim.op?.id ?? null;
    this.region = sim.region;
    this.faultId = sim.fault?.id ?? null;
    this.warnings = sim.warnings;
    this.requestId = sim.requestId;
    this.lineSurface = surface ?? (sim.surface === 'device' ? 'device' : 'other');
    // Why a request failed, in the journal: a bounded, redacted excerpt of non-2xx answers.
    if (status >= 300 && sim.answer !== undefined) {
      this.answer = summarizeAnswer(sim.answer);
      this.errorCode = errorCodeOf(sim.answer);
    }
    // Kept in the journal from here on: nothing may hold the request or the response alive.
    this.req = this.res = undefined;
    const { logger, byStatus } = this.ctx;
    const level = byStatus ? levelOf(status) : 'debug';
    if (surface !== 'api' && surface !== 'storage') {
      // Not journaled (control API, device protocol, docs, other paths): the line is all there is.
      if (logger.isLevelEnabled(level)) this.line(undefined, level);
      return undefined;
    }
    if (!byStatus) this.ctx.summary.count(status, this.started);
    const id = this.ctx.services.journal.add(this, this.receivedMs, owner.ring);
    if (typeof id === 'string') {
      if (logger.isLevelEnabled(level)) this.line(id, level);
      return undefined;
    }
    return id.then((i) => {
      if (logger.isLevelEnabled(level)) this.line(i, level);
    });
  }

  get rawPath(): string {
    return this.originalUrl;
  }

  /**
   * About what this entry keeps until built: its texts, and the object itself. Summaries count
   * twice: strings of a parsed body may keep the body's text alive (V8 slices them from it).
   */
  get retainedBytes(): number {
    let n = RECORDING_OVERHEAD + this.originalUrl.length;
    for (const k in this.headers) n += k.length + String(this.headers[k]).length;
    return n + 2 * ((JSON.stringify(this.body)?.length ?? 0) + (JSON.stringify(this.answer)?.length ?? 0));
  }

  /** `id`: the journal entry's (partner API and storage host only). */
  private line(id: string | undefined, level: LineLevel): void {
    const { logger, readable } = this.ctx;
    const debug = logger.isLevelEnabled('debug');
    if (readable !== undefined && !debug) {
      // One line a person reads, from the recorded facts: no entry built, no headers redacted.
      readable(level, readableLine(this.lineFacts(), this.errorCode));
      return;
    }
    if (!debug && readable === undefined) {
      logger[level](this.jsonFacts(id), 'request');
      return;
    }
    const e = { id: id ?? '-', ...this.build() };
    // At debug, a terminal's line carries the request's headers and body summary below it.
    if (readable !== undefined)
      logger[level](detail(true, e), readableLine(this.lineFacts(), this.errorCode));
    else {
      const code = this.errorCode === undefined ? {} : { code: this.errorCode };
      const { id: _id, ...rest } = lineOf(e);
      // A line of a surface the journal does not keep names its surface and no journal id.
      const fields = id === undefined ? { ...rest, surface: this.lineSurface } : lineOf(e);
      logger[level]({ ...fields, ...code, ...detail(debug, e) }, 'request');
    }
  }

  /**
   * A JSON line's fields, from the recorded facts as the readable line is: no entry built, no
   * headers redacted, no answer excerpt (debug adds those), since every request in a pipe
   * writes one and a line cost more than serving a binding query when it built the entry.
   */
  private jsonFacts(id: string | undefined): Record<string, unknown> {
    // Filled field by field, not spread from conditional objects: the spreads made this the
    // largest cost of a JSON line (5% of a binding GET's CPU, bench/requestLogLine.ts).
    const f: Record<string, unknown> = {};
    if (id !== undefined) f.id = id;
    f.operation = this.operation;
    f.method = this.method;
    f.path = scrub(this.originalUrl);
    f.status = this.status;
    if (this.errorCode !== undefined) f.code = this.errorCode;
    f.latency_ms = this.latencyMs;
    f.client_id = this.client_id;
    if (this.unverified) f.unverified = true;
    if (this.surface === 'api') f.region = this.region;
    f.fault_id = this.faultId;
    if (this.requestId !== undefined) f.request_id = this.requestId;
    f.surface = this.lineSurface;
    if (this.error) f.error = this.error;
    if (this.warnings) f.warnings = this.warnings;
    f.sim_time = toIso(this.receivedMs);
    return f;
  }

  /** What the readable line shows, the path through the one redactor. */
  private lineFacts(): LineFacts {
    return {
      method: this.method,
      path: scrub(this.originalUrl),
      status: this.status,
      latency_ms: this.latencyMs,
      client_id: this.client_id,
      unverified: this.unverified,
      fault_id: this.faultId,
      request_id: this.requestId,
      error: this.error,
    };
  }

  build(): Omit<JournalEntry, 'id'> {
    const { surface } = this;
    const entry: Omit<JournalEntry, 'id'> = {
      time: toIso(this.receivedMs),
      operation: this.operation,
      method: this.method,
      path: scrub(this.originalUrl),
      status: this.status,
      latency_ms: this.latencyMs,
      client_id: this.client_id,
      ...(this.unverified ? { unverified: true } : {}),
      ...(surface === 'api' ? { region: this.region } : {}),
      headers: redactHeaders(this.headers),
      fault_id: this.faultId,
      ...(this.requestId !== undefined ? { request_id: this.requestId } : {}),
      ...(surface === 'api' || surface === 'storage' ? { surface } : {}),
      ...(this.error ? { error: this.error } : {}),
      ...(this.warnings ? { warnings: this.warnings } : {}),
    };
    if (this.body !== undefined) entry.body_summary = this.body;
    if (this.answer !== undefined) entry.response_excerpt = this.answer;
    return boundEntry(entry);
  }
}
