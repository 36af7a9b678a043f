import { readFile } from 'node:fs/promises';
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import type { TLSSocket } from 'node:tls';
import type { Logger } from 'pino';
import { type Config, ConfigError } from '../config.js';
import { Pseudonyms } from '../control/pseudonyms.js';
import { Random } from '../core/random.js';
import { fromRoot } from '../core/root.js';
import { credentialsOf } from '../http/authScheme.js';
import { RequestIds } from '../http/requestId.js';
import { BodyTap } from './bodyTap.js';
import { type Answer, forward } from './forward.js';
import { harEntry, isTextual } from './harEntry.js';
import { HarFile } from './harFile.js';
import { operationOf } from './operationOf.js';
import { answerError } from './recorderError.js';
import { type Relayed, relayAnswer } from './relayAnswer.js';
import { answeredRefusal } from './storageEgress.js';
import {
  describeUpstream,
  type Forward,
  forwardOf,
  parseUpstream,
  rewriteAnswer,
  type Upstream,
} from './upstream.js';
import { upstreamViolations } from './upstreamViolations.js';

const UPSTREAM_TIMEOUT_MS = 120_000;

export interface Recorder {
  /** The listener in front of the app: partner-API and storage requests go upstream. */
  listener: RequestListener;
  file: HarFile;
  upstream: string;
  close(): Promise<void>;
}

/** What stops a folder from holding recordings, in words (the code kept for a search). */
const FOLDER_REASONS: Record<string, string> = {
  ENOTDIR: 'a file stands where a folder of the path should be',
  EEXIST: 'it is a file, not a folder',
  EACCES: 'permission denied',
  EPERM: 'not permitted',
  EROFS: 'the file system is read-only',
  ENOSPC: 'no space left on the device',
};

/** A --record folder that cannot take a recording: refused at start, naming flag, path, reason. */
function folderRefused(dir: string, e: NodeJS.ErrnoException): ConfigError {
  const why = (e.code && FOLDER_REASONS[e.code]) ?? e.message;
  return new ConfigError(
    `--record ${dir}: cannot write a recording in this folder: ${why}${e.code ? ` (${e.code})` : ''}`,
  );
}

const resourceOf = (req: IncomingMessage): string => (req.url ?? '/').split('?')[0]!;

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
 * the exchange appended to the session's HAR file before the client's answer ends. Bodies
 * stream both ways; the file keeps text up to --record-body-limit, and the size and MD5 of all.
 * Everything else (control API, docs, device protocol) is the local simulator's.
 */
export async function startRecorder(app: RequestListener, config: Config, logger: Logger): Promise<Recorder> {
  const { version } = JSON.parse(await readFile(fromRoot('package.json'), 'utf8')) as { version: string };
  const up: Upstream = parseUpstream(config.upstream!);
  const upstream = describeUpstream(up);
  const file = await HarFile.create(config.record!, { upstream }, version, {
    maxSize: config.recordMaxSize,
  }).catch((e: unknown) => {
    throw folderRefused(config.record!, e as NodeJS.ErrnoException);
  });
  const names = new Pseudonyms();
  const ids = new RequestIds(new Random(undefined));

  async function record(req: IncomingMessage, res: ServerResponse, to: Forward): Promise<void> {
    const started = new Date();
    const t0 = performance.now();
    const path = req.url ?? '/';
    const encrypted = (req.socket as TLSSocket).encrypted === true;
    const self = config.publicUrl ?? `${encrypted ? 'https' : 'http'}://${req.headers.host ?? '127.0.0.1'}`;
    const method = req.method ?? 'GET';
    const json = (status: number, code: string, message: string) =>
      answerError(res, to.surface, status, code, message, path.split('?')[0]!);
    // The request body goes upstream as it arrives; the tap keeps what the file needs of it.
    const reqTap = new BodyTap(isTextual(String(req.headers['content-type'] ?? '')), config.recordBodyLimit);
    req.on('data', reqTap.add);
    const reqDone = new Promise<void>((resolve) => {
      req.once('end', resolve);
      req.once('close', resolve);
    });
    let answer: Answer;
    try {
      answer = await forward(to.url, method, req.headers, req, UPSTREAM_TIMEOUT_MS, to.lookup);
    } catch (e) {
      if (req.destroyed && !req.complete)
        return void logger.info({ path }, 'the client went away mid-request; nothing recorded');
      // The rest of the body, if any, is read and dropped, so the client gets its 502.
      req.resume();
      if (answeredRefusal(e, to.url, logger, json)) return;
      logger.warn(
        { err: (e as Error).message, upstream: to.url.origin },
        'upstream did not answer; nothing recorded',
      );
      return json(
        502,
        'UPSTREAM_UNREACHABLE',
        `the upstream ${to.url.origin} did not answer: ${(e as Error).message}`,
      );
    }
    let relayed: Relayed;
    try {
      relayed = await relayAnswer(res, answer, {
        head: method === 'HEAD',
        limit: config.recordBodyLimit,
        rewrite: (text) => rewriteAnswer(up, text, self),
      });
    } catch (e) {
      // The upstream's answer broke off, or the client left: neither side has a whole exchange.
      logger.warn({ err: (e as Error).message, path }, 'the answer broke off; nothing recorded');
      answer.body.destroy();
      if (res.headersSent) return void res.destroy();
      return json(502, 'UPSTREAM_UNREACHABLE', `the upstream ${to.url.origin} broke off its answer`);
    }
    // An upstream may answer before the body is all in (an S3 403): the entry waits for it.
    if (!req.complete) answer.stopSending();
    await reqDone;
    const app = appOf(req);
    if (!file.session.app && app) file.update({ app });
    if (!file.session.region) file.update({ region: to.region });
    // A presigned URL names no region: its exchange is the session's.
    const region = to.surface === 'storage' ? (file.session.region ?? to.region) : to.region;
    const operation = operationOf(method, path);
    const violations = upstreamViolations(operation, answer.status, answer.headers, relayed.body);
    for (const violation of violations)
      logger.warn({ operation, status: answer.status, violation }, 'the upstream answered outside the spec');
    const entry = harEntry(
      {
        started,
        ms: Math.round(performance.now() - t0),
        method,
        url: `${self}${path}`,
        reqHeaders: req.headers,
        reqBody: reqTap.done(),
        status: answer.status,
        statusText: answer.statusText,
        resHeaders: relayed.headers,
        resBody: relayed.body,
        operation,
        region,
        violations,
      },
      names,
    );
    const before = file.path;
    try {
      await file.append(entry);
      if (file.path !== before) logger.info({ file: file.path }, 'the recording goes on in a new file');
    } catch (e) {
      logger.error({ err: (e as Error).message, file: file.path }, 'recording failed');
      // Streamed already: the answer is cut short, so the client does not take it as whole.
      if (res.headersSent) return void res.destroy();
      return json(500, 'RECORDING_FAILED', `the exchange could not be written to ${file.path}`);
    }
    relayed.end();
  }

  const listener: RequestListener = (req, res) => {
    const to = forwardOf(up, req.url ?? '/');
    if (!to) return app(req, res);
    // Every answer of the recorder carries an id (its own errors too): the upstream's, when its
    // answer has one (writeHead's headers win over this), else the client's safe one or ours.
    res.setHeader('X-Request-Id', ids.of(req.headers['x-request-id']));
    record(req, res, to).catch((e: unknown) => {
      logger.error({ err: (e as Error).message }, 'record mode failed');
      if (!res.headersSent)
        answerError(
          res,
          to.surface,
          500,
          'RECORDING_FAILED',
          'record mode failed on this request',
          resourceOf(req),
        );
      else res.destroy();
    });
  };
  return { listener, file, upstream, close: () => file.close() };
}
