import { request as httpRequest } from 'node:http';
import type { LookupFunction } from 'node:net';
import { lazyHttps } from '../core/lazyHttps.js';

/** At most this much of an answer is read; the rest is cut off with the connection. */
const MAX_READ_BYTES = 64 * 1024;
/** What the delivery log keeps of an answer's body. */
const EXCERPT_BYTES = 2048;

export interface SendResult {
  status?: number;
  excerpt?: string;
  error?: string;
  durationMs: number;
}

/**
 * One POST of a delivery, as a careful sender makes it: a deadline for the whole exchange
 * (connect, answer, body), at most MAX_READ_BYTES of the answer read, no redirect followed, no
 * connection reused (a hostile receiver's socket never serves another delivery). Never
 * rejects: whatever the receiver does becomes a result to record.
 */
export function postOnce(
  url: string,
  headers: Record<string, string>,
  body: string,
  timeoutMs: number,
  signal?: AbortSignal,
  /** Resolves the receiver's name, refusing addresses deliveries may not reach. */
  lookup?: LookupFunction,
): Promise<SendResult> {
  const started = performance.now();
  return new Promise<SendResult>((resolve) => {
    let done = false;
    const chunks: Buffer[] = [];
    let read = 0;
    let status: number | undefined;
    const finish = (error?: string) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      req.destroy();
      const text = Buffer.concat(chunks).subarray(0, EXCERPT_BYTES).toString('utf8');
      resolve({
        ...(status !== undefined ? { status } : {}),
        ...(chunks.length > 0 ? { excerpt: text } : {}),
        ...(error !== undefined ? { error } : {}),
        durationMs: Math.round((performance.now() - started) * 10) / 10,
      });
    };
    const payload = Buffer.from(body, 'utf8');
    const target = new URL(url);
    const req = (target.protocol === 'https:' ? lazyHttps().request : httpRequest)(target, {
      method: 'POST',
      agent: false,
      ...(lookup ? { lookup } : {}),
      headers: { ...headers, 'content-length': String(payload.length), connection: 'close' },
    });
    const timer = setTimeout(
      () =>
        finish(
          status === undefined
            ? `timeout after ${timeoutMs} ms`
            : `answer not finished within ${timeoutMs} ms`,
        ),
      timeoutMs,
    );
    req.on('response', (res) => {
      status = res.statusCode;
      res.on('data', (c: Buffer) => {
        if (read >= MAX_READ_BYTES) return;
        chunks.push(c.subarray(0, MAX_READ_BYTES - read));
        read += c.length;
        // Enough to judge and show: the rest of a huge answer is not worth reading.
        if (read >= MAX_READ_BYTES) finish();
      });
      res.on('end', () => finish());
      res.on('error', (e) => finish(`answer cut: ${(e as NodeJS.ErrnoException).code ?? e.message}`));
      res.on('aborted', () => finish('answer cut: connection reset'));
    });
    req.on('error', (e) =>
      finish(
        e.name === 'AddressRefused'
          ? `refused: ${e.message}`
          : ((e as NodeJS.ErrnoException).code ?? e.message),
      ),
    );
    signal?.addEventListener('abort', () => finish('stopped'), { once: true });
    req.end(payload);
  });
}
