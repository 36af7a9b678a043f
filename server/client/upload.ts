import {
  type Backoff,
  DEFAULT_BACKOFF,
  fullJitter,
  isTransient,
  networkReason,
  retryAfterMs,
  sleep,
} from './retry.js';
import {
  completeUpload,
  md5hex,
  presign,
  putPart,
  type RawAnswer,
  type UploadedFile,
  type UploadSession,
} from './steps.js';

/**
 * The multipart upload as a careful partner app writes it: presign, PUT the parts with
 * `concurrency` requests in flight, complete with the MD5 of the whole file. Every step is
 * retried on transient failures (5xx, 429, dropped connections, timeouts) with full-jitter
 * back-off and `Retry-After` as a floor; each part's ETag is checked against the MD5 of the
 * bytes sent (a part whose ETag does not match is sent again). Only one part per request in
 * flight is held in memory when the bytes come from `read`.
 */
export interface UploadOptions {
  /** Tries per request, the first included (default 5). */
  attempts?: number;
  backoff?: Backoff;
  /** PUTs in flight at once (default 4). */
  concurrency?: number;
  /** Per-request timeout, ms (default 30 s): a hung request counts as a failed try. */
  timeoutMs?: number;
  /** How to wait between tries (a timer; tests may record instead). */
  sleep?: (ms: number) => Promise<void>;
  /** Told about every retry, e.g. for logs or metrics. */
  onRetry?: (e: RetryEvent) => void;
  /** Told after each part is stored: bytes stored so far of `total`. */
  onProgress?: (p: { sent: number; total: number; part: number; parts: number }) => void;
  /** MD5 (hex) of the whole file, sent at completion and checked against the answer. */
  fileMd5?: string;
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
    /** The service's answer, when there was one. */
    readonly body?: unknown,
  ) {
    super(`upload ${step}${part ? ` ${part}` : ''} failed: ${reason}`);
    this.name = 'UploadError';
  }
}

/** The bytes of an upload: its size and how to read part `part` ([offset, offset+length)). */
export interface UploadSource {
  size: number;
  read(part: number, length: number, offset: number): Uint8Array;
}

const unquote = (etag: string): string => etag.replace(/^"|"$/g, '');

/** One try: an answer, or the network-level reason it did not come (reset, timeout). */
type Outcome<A> = { res: A & { status: number; headers: Headers; text: string } } | { error: string };

/** Upload bytes held in memory (MD5 computed here). */
export const uploadBytes = (
  api: string,
  userToken: string,
  bytes: Uint8Array,
  filetype: string,
  opts: UploadOptions = {},
): Promise<UploadedFile> =>
  uploadSource(
    api,
    userToken,
    { size: bytes.length, read: (_p, length, offset) => bytes.subarray(offset, offset + length) },
    filetype,
    { fileMd5: md5hex(bytes), ...opts },
  );

export async function uploadSource(
  api: string,
  userToken: string,
  source: UploadSource,
  filetype: string,
  opts: UploadOptions = {},
): Promise<UploadedFile> {
  const attempts = opts.attempts ?? 5;
  const backoff = opts.backoff ?? DEFAULT_BACKOFF;
  const wait = opts.sleep ?? sleep;
  const timeout = () => AbortSignal.timeout(opts.timeoutMs ?? 30_000);
  const guard = async <A extends RawAnswer | Awaited<ReturnType<typeof putPart>>>(
    once: () => Promise<A>,
  ): Promise<Outcome<A>> => {
    try {
      return { res: await once() };
    } catch (e) {
      return { error: networkReason(e) };
    }
  };
  let failed = false;

  /** Run `once` until it succeeds, fails for good, or runs out of tries. */
  async function retrying<A extends RawAnswer | Awaited<ReturnType<typeof putPart>>, T>(
    step: RetryEvent['step'],
    part: number | undefined,
    once: () => Promise<A>,
    /** A 2xx answer: the value, or why it is no good and the request must be sent again. */
    accept: (res: A) => { ok: T } | { retry: string },
  ): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      const o = await guard(once);
      let reason: string;
      let floor = 0;
      if ('error' in o) reason = `network: ${o.error}`;
      else if (o.res.status >= 200 && o.res.status < 300) {
        const verdict = accept(o.res);
        if ('ok' in verdict) return verdict.ok;
        reason = verdict.retry;
      } else if (isTransient(o.res.status)) {
        reason = `HTTP ${o.res.status}`;
        floor = retryAfterMs(o.res.headers) ?? 0;
      } else {
        const body = 'body' in o.res ? o.res.body : o.res.text;
        throw new UploadError(step, `HTTP ${o.res.status}: ${o.res.text}`, o.res.status, part, body);
      }
      if (attempt >= attempts || failed) {
        throw new UploadError(
          step,
          `${reason} after ${attempt} tries`,
          'res' in o ? o.res.status : undefined,
          part,
        );
      }
      const waitMs = Math.max(floor, fullJitter(attempt - 1, backoff));
      opts.onRetry?.({ step, ...(part ? { part } : {}), attempt, reason, waitMs });
      await wait(waitMs);
    }
  }

  const session: UploadSession = await retrying(
    'presign',
    undefined,
    () => presign(api, userToken, { filesize: source.size, filetype }, timeout()),
    (r) => ({ ok: r.body as UploadSession }),
  );

  const etags = new Map<number, string>();
  const queue = [...session.Parts];
  let sent = 0;
  const worker = async () => {
    for (let p = queue.shift(); p && !failed; p = queue.shift()) {
      const { PartNumber, PresignedUrl } = p;
      const offset = (PartNumber - 1) * session.ChunkSize;
      const chunk = source.read(PartNumber, Math.min(session.ChunkSize, source.size - offset), offset);
      const expected = md5hex(chunk);
      const etag = await retrying<Awaited<ReturnType<typeof putPart>>, string>(
        'part',
        PartNumber,
        () => putPart(PresignedUrl, chunk, {}, timeout()),
        (r) =>
          // An ETag for other bytes means the part arrived damaged: send it again.
          r.etag && unquote(r.etag) === expected
            ? { ok: r.etag }
            : { retry: `ETag ${r.etag} is not the MD5 of the part` },
      );
      etags.set(PartNumber, etag);
      sent += chunk.length;
      opts.onProgress?.({ sent, total: source.size, part: PartNumber, parts: session.Parts.length });
    }
  };
  const workers = Array.from({ length: Math.max(1, opts.concurrency ?? 4) }, () =>
    worker().catch((e: unknown) => {
      failed = true;
      throw e;
    }),
  );
  await Promise.all(workers);

  const part_list = session.Parts.map((p) => ({ PartNumber: p.PartNumber, ETag: etags.get(p.PartNumber)! }));
  const file_md5 = opts.fileMd5;
  const body = {
    file_id: session.FileId,
    upload_id: session.UploadId,
    part_list,
    filetype,
    ...(file_md5 ? { file_md5 } : {}),
  };
  // Only answers that say the server did not complete it are retried: a lost answer to a
  // completion that did happen would turn into NoSuchUpload on the next try.
  return retrying(
    'complete',
    undefined,
    () => completeUpload(api, userToken, body, timeout()),
    (r) => {
      const file = r.body as UploadedFile;
      if (file_md5 && file.FileMd5 !== file_md5)
        throw new UploadError('complete', `FileMd5 ${file.FileMd5} != ${file_md5}`);
      return { ok: file };
    },
  );
}

/**
 * Upload `size` bytes produced by `partBytes(partNumber, length, offset)`, then complete
 * (the form tests and benchmarks use to upload generated content without holding it).
 */
export const uploadAll = (
  api: string,
  token: string,
  size: number,
  partBytes: UploadSource['read'],
  opts: UploadOptions & { filetype?: string } = {},
): Promise<UploadedFile> => uploadSource(api, token, { size, read: partBytes }, opts.filetype ?? 'mp3', opts);
