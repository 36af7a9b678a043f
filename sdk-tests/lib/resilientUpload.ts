import { createHash } from 'node:crypto';
import type { components } from '../../server/spec/api-types.js';
import {
  type Backoff,
  DEFAULT_BACKOFF,
  fullJitter,
  isTransient,
  realSleep,
  retryAfterMs,
} from './backoff.js';

/**
 * A reference multipart upload as a careful partner app writes it: every step retried on
 * transient failures (5xx, 429, dropped connections, timeouts) with full-jitter back-off and
 * `Retry-After` honoured; each part's ETag checked against the MD5 of the bytes sent (a part
 * whose ETag does not match is sent again); completion with the MD5 of the whole file, checked
 * against the answer. It depends only on the generated API types.
 */
export type UploadSession = components['schemas']['UploadSession'];
export type UploadedFile = components['schemas']['UploadedFile'];

export interface UploadOptions {
  /** Tries per request, the first included (default 5). */
  attempts?: number;
  backoff?: Backoff;
  /** Per-request timeout, ms (default 30 s): a hung request counts as a failed try. */
  timeoutMs?: number;
  /** How to wait between tries (a timer; tests may record instead). */
  sleep?: (ms: number) => Promise<void>;
  /** Told about every retry, e.g. for logs or metrics. */
  onRetry?: (e: RetryEvent) => void;
}

export interface RetryEvent {
  step: 'presign' | 'part' | 'complete';
  part?: number;
  /** The try that failed, from 1. */
  attempt: number;
  reason: string;
  waitMs: number;
}

export class UploadError extends Error {
  constructor(
    readonly step: RetryEvent['step'],
    readonly reason: string,
    readonly status?: number,
    readonly part?: number,
  ) {
    super(`upload ${step}${part ? ` ${part}` : ''} failed: ${reason}`);
    this.name = 'UploadError';
  }
}

const md5 = (b: Uint8Array): string => createHash('md5').update(b).digest('hex');
const unquote = (etag: string): string => etag.replace(/^"|"$/g, '');

/** One try: an answer, or the network-level reason it did not come (reset, timeout). */
type Outcome = { res: Response; text: string } | { error: string };

export async function resilientUpload(
  api: string,
  userToken: string,
  bytes: Uint8Array,
  filetype: string,
  opts: UploadOptions = {},
): Promise<UploadedFile> {
  const attempts = opts.attempts ?? 5;
  const backoff = opts.backoff ?? DEFAULT_BACKOFF;
  const sleep = opts.sleep ?? realSleep;
  const send = async (url: string, init: RequestInit): Promise<Outcome> => {
    try {
      const res = await fetch(url, { ...init, signal: AbortSignal.timeout(opts.timeoutMs ?? 30_000) });
      return { res, text: await res.text() };
    } catch (e) {
      const err = e as Error & { cause?: { code?: string } };
      return { error: err.cause?.code ?? err.name };
    }
  };

  /** Run `once` until it succeeds, fails for good, or runs out of tries. */
  async function retrying<T>(
    step: RetryEvent['step'],
    part: number | undefined,
    once: () => Promise<Outcome>,
    /** A 2xx answer: the value, or why it is no good and the request must be sent again. */
    accept: (o: { res: Response; text: string }) => { ok: T } | { retry: string },
  ): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      const o = await once();
      let reason: string;
      let floor = 0;
      if ('error' in o) reason = `network: ${o.error}`;
      else if (o.res.ok) {
        const verdict = accept(o);
        if ('ok' in verdict) return verdict.ok;
        reason = verdict.retry;
      } else if (isTransient(o.res.status)) {
        reason = `HTTP ${o.res.status}`;
        floor = retryAfterMs(o.res.headers) ?? 0;
      } else throw new UploadError(step, `HTTP ${o.res.status}: ${o.text}`, o.res.status, part);
      if (attempt >= attempts) {
        throw new UploadError(
          step,
          `${reason} after ${attempts} tries`,
          'res' in o ? o.res.status : undefined,
          part,
        );
      }
      const waitMs = Math.max(floor, fullJitter(attempt - 1, backoff));
      opts.onRetry?.({ step, ...(part ? { part } : {}), attempt, reason, waitMs });
      await sleep(waitMs);
    }
  }

  const json = (body: unknown): RequestInit => ({
    method: 'POST',
    headers: { authorization: `Bearer ${userToken}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });

  const session = await retrying(
    'presign',
    undefined,
    () =>
      send(
        `${api}/open/partner/files/upload/generate-presigned-urls`,
        json({ filesize: bytes.length, filetype }),
      ),
    (o) => ({ ok: JSON.parse(o.text) as UploadSession }),
  );

  const part_list: { PartNumber: number; ETag: string }[] = [];
  for (const p of session.Parts) {
    const chunk = bytes.subarray((p.PartNumber - 1) * session.ChunkSize, p.PartNumber * session.ChunkSize);
    const expected = md5(chunk);
    const etag = await retrying<string>(
      'part',
      p.PartNumber,
      () => send(p.PresignedUrl, { method: 'PUT', body: chunk }),
      (o) => {
        const got = o.res.headers.get('etag');
        // An ETag for other bytes means the part arrived damaged: send it again.
        return got && unquote(got) === expected
          ? { ok: got }
          : { retry: `ETag ${got} is not the MD5 of the part` };
      },
    );
    part_list.push({ PartNumber: p.PartNumber, ETag: etag });
  }

  const file_md5 = md5(bytes);
  const body = { file_id: session.FileId, upload_id: session.UploadId, part_list, filetype, file_md5 };
  // Only answers that say the server did not complete it are retried: a lost answer to a
  // completion that did happen would turn into NoSuchUpload on the next try.
  return retrying(
    'complete',
    undefined,
    () => send(`${api}/open/partner/files/upload/complete-upload`, json(body)),
    (o) => {
      const file = JSON.parse(o.text) as UploadedFile;
      if (file.FileMd5 !== file_md5)
        throw new UploadError('complete', `FileMd5 ${file.FileMd5} != ${file_md5}`);
      return { ok: file };
    },
  );
}
