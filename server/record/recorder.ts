import { readFile } from 'node:fs/promises';
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import type { TLSSocket } from 'node:tls';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import { Pseudonyms } from '../control/redact.js';
import { fromRoot } from '../core/root.js';
import { credentialsOf } from '../http/authScheme.js';
import { endToEnd, forward, readBody } from './forward.js';
import { harEntry } from './harEntry.js';
import { HarFile } from './harFile.js';
import { operationOf } from './operationOf.js';
import { answeredRefusal } from './storageEgress.js';
import {
  describeUpstream,
  type Forward,
  forwardOf,
  parseUpstream,
  rewriteAnswer,
  type Upstream,
} from './upstream.js';

/** A part is at most --chunk-size (5 MiB by default); anything far bigger is not a client's. */
const MAX_REQUEST = 256 * 1024 ** 2;
const UPSTREAM_TIMEOUT_MS = 120_000;
/** Answers whose text may hold storage URLs to point back at the recorder. */
const REWRITABLE = /json|xml|text\//i;

export interface Recorder {
  /** The listener in front of the app: partner-API and storage requests go upstream. */
  listener: RequestListener;
  file: HarFile;
  upstream: string;
  close(): Promise<void>;
}

function json(res: ServerResponse, status: number, detail: string, message: string): void {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' });
  res.end(JSON.stringify({ detail, message }));
}

/** The app a request authenticates as: the Basic user name or X-Client-Id (never a secret). */
function appOf(req: IncomingMessage): string | undefined {
  const basic = credentialsOf(req.headers.authorization, 'Basic');
  if (basic) return Buffer.from(basic, 'base64').toString('utf8').split(':')[0] || undefined;
  const id = req.headers['x-client-id'];
  return typeof id === 'string' && id ? id : undefined;
}

/**
 * `serve --record <dir> --upstream …`: every partner-API and storage request that reaches the
 * simulator (base URL, HTTPS listener or proxy: all hand the app a simulator path) is sent to
 * the upstream, its answer passed back unchanged but for storage URLs pointing back here, and
 * the exchange appended to the session's HAR file before the client gets the answer.
 * Everything else (control API, docs, device protocol) is the local simulator's.
 */
export async function startRecorder(app: RequestListener, config: Config, logger: Logger): Promise<Recorder> {
  const { version } = JSON.parse(await readFile(fromRoot('package.json'), 'utf8')) as { version: string };
  const up: Upstream = parseUpstream(config.upstream!);
  const upstream = describeUpstream(up);
  const file = await HarFile.create(config.record!, { upstream }, version);
  const names = new Pseudonyms();

  async function record(req: IncomingMessage, res: ServerResponse, to: Forward): Promise<void> {
    const started = new Date();
    const t0 = performance.now();
    const path = req.url ?? '/';
    const encrypted = (req.socket as TLSSocket).encrypted === true;
    const self = config.publicUrl ?? `${encrypted ? 'https' : 'http'}://${req.headers.host ?? '127.0.0.1'}`;
    let reqBody: Buffer;
    try {
      reqBody = await readBody(req, MAX_REQUEST);
    } catch {
      return json(res, 413, 'REQUEST_TOO_LARGE', `the recorder forwards bodies up to ${MAX_REQUEST} bytes`);
    }
    let answer: Awaited<ReturnType<typeof forward>>;
    try {
      answer = await forward(
        to.url,
        req.method ?? 'GET',
        req.headers,
        reqBody,
        UPSTREAM_TIMEOUT_MS,
        to.lookup,
      );
    } catch (e) {
      if (answeredRefusal(e, to.url, res, logger)) return;
      logger.warn(
        { err: (e as Error).message, upstream: to.url.origin },
        'upstream did not answer; nothing recorded',
      );
      return json(
        res,
        502,
        'UPSTREAM_UNREACHABLE',
        `the upstream ${to.url.origin} did not answer: ${(e as Error).message}`,
      );
    }
    const headers = endToEnd(answer.headers);
    let resBody = answer.body;
    const type = String(answer.headers['content-type'] ?? '');
    if (resBody.length > 0 && REWRITABLE.test(type))
      resBody = Buffer.from(rewriteAnswer(up, resBody.toString('utf8'), self));
    if (typeof headers.location === 'string') headers.location = rewriteAnswer(up, headers.location, self);
    const head = req.method === 'HEAD';
    if (head && answer.headers['content-length'] !== undefined)
      headers['content-length'] = answer.headers['content-length'];
    else if (answer.status !== 204 && answer.status !== 304)
      headers['content-length'] = String(resBody.length);
    const app = appOf(req);
    if (!file.session.app && app) file.update({ app });
    if (!file.session.region) file.update({ region: to.region });
    // A presigned URL names no region: its exchange is the session's.
    const region = to.surface === 'storage' ? (file.session.region ?? to.region) : to.region;
    const entry = harEntry(
      {
        started,
        ms: Math.round(performance.now() - t0),
        method: req.method ?? 'GET',
        url: `${self}${path}`,
        reqHeaders: req.headers,
        reqBody,
        status: answer.status,
        statusText: answer.statusText,
        resHeaders: headers,
        resBody,
        operation: operationOf(req.method ?? 'GET', path),
        region,
      },
      names,
    );
    try {
      await file.append(entry);
    } catch (e) {
      logger.error({ err: (e as Error).message, file: file.path }, 'recording failed');
      return json(res, 500, 'RECORDING_FAILED', `the exchange could not be written to ${file.path}`);
    }
    res.writeHead(answer.status, answer.statusText, headers);
    res.end(head ? undefined : resBody);
  }

  const listener: RequestListener = (req, res) => {
    const to = forwardOf(up, req.url ?? '/');
    if (!to) return app(req, res);
    record(req, res, to).catch((e: unknown) => {
      logger.error({ err: (e as Error).message }, 'record mode failed');
      if (!res.headersSent) json(res, 500, 'RECORDING_FAILED', 'record mode failed on this request');
      else res.destroy();
    });
  };
  return { listener, file, upstream, close: () => file.close() };
}
