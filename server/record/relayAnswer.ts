import type { ServerResponse } from 'node:http';
import { finished } from 'node:stream/promises';
import { BodyTap, type TappedBody } from './bodyTap.js';
import { type Answer, endToEnd } from './forward.js';
import { isTextual } from './harEntry.js';

/** Answers whose text may hold storage URLs to point back at the recorder. */
const REWRITABLE = /json|xml|text\//i;

export interface Relayed {
  /** The answer's body as the client got it: size, MD5, and the bytes when kept. */
  body: TappedBody;
  /** The headers the client got (or gets at `end`), for the recording. */
  headers: Record<string, string | string[]>;
  /** Send whatever is still held (the head, a rewritten text) and end the answer. */
  end(): void;
}

/** Resolves once `res` takes more, rejects once the client is gone. */
function drained(res: ServerResponse): Promise<void> {
  if (res.destroyed) return Promise.reject(new Error('the client went away'));
  return new Promise((resolve, reject) => {
    const done = () => {
      res.off('close', gone);
      resolve();
    };
    const gone = () => {
      res.off('drain', done);
      reject(new Error('the client went away'));
    };
    res.once('drain', done);
    res.once('close', gone);
  });
}

/**
 * Pass the upstream's answer to the client as it arrives, with backpressure (a download is
 * never held whole), watching it for the recording. The answer is not ended: the caller ends
 * it once the exchange is on disk, so no client has a complete answer the file lacks.
 *
 * Text that may name storage URLs (JSON, XML, text) is held until its end, up to `limit`
 * bytes, and its URLs rewritten to come back through the recorder (`rewrite`); its head then
 * waits for `end()` too, so a failed write still answers 500. Text longer than that is passed
 * on as it comes, unrewritten: a presigned URL lives in a small JSON answer, never in a
 * megabyte of text.
 */
export async function relayAnswer(
  res: ServerResponse,
  answer: Answer,
  o: { head: boolean; limit: number; rewrite: (text: string) => string },
): Promise<Relayed> {
  const headers = endToEnd(answer.headers);
  if (typeof headers.location === 'string') headers.location = o.rewrite(headers.location);
  const type = String(answer.headers['content-type'] ?? '');
  const tap = new BodyTap(isTextual(type), o.limit);
  const length = answer.headers['content-length'];
  const writeHead = () => res.writeHead(answer.status, answer.statusText, headers);
  if (o.head || answer.status === 204 || answer.status === 304) {
    // A HEAD answer's length is the GET's: passed on, though no body follows.
    if (o.head && length !== undefined) headers['content-length'] = length;
    answer.body.resume();
    await finished(answer.body);
    return { body: tap.done(), headers, end: () => writeHead().end() };
  }
  const send = async (chunk: Buffer) => {
    tap.add(chunk);
    if (!res.write(chunk)) await drained(res);
  };
  const stream = () => {
    // Bytes passed unchanged keep the upstream's length; a decoded answer goes chunked.
    if (length !== undefined) headers['content-length'] = length;
    writeHead();
  };
  let held: Buffer[] | undefined = REWRITABLE.test(type) ? [] : undefined;
  let heldSize = 0;
  if (!held) stream();
  for await (const chunk of answer.body as AsyncIterable<Buffer>) {
    if (!held) {
      await send(chunk);
      continue;
    }
    held.push(chunk);
    heldSize += chunk.length;
    if (heldSize <= o.limit) continue;
    const all = held;
    held = undefined;
    stream();
    for (const c of all) await send(c);
  }
  if (!held) return { body: tap.done(), headers, end: () => res.end() };
  const text = Buffer.from(o.rewrite(Buffer.concat(held).toString('utf8')));
  tap.add(text);
  headers['content-length'] = String(text.length);
  return {
    body: tap.done(),
    headers,
    end: () => {
      writeHead();
      res.end(text);
    },
  };
}
