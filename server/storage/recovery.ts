import { committedFile, dropUpload } from './housekeeping.js';
import { partKey, uploadPrefix } from './records.js';
import type { StorageService } from './storageService.js';

/** What a recovery removed. */
export interface Recovered {
  /** Sessions whose completion a crash cut after its commit point (the file exists). */
  ghosts: number;
  /** Part records of sessions that are gone. */
  parts: number;
  /** Blobs no part or file record names. */
  blobs: number;
}

export interface RecoveryOptions {
  /** Records read per page, with a turn of the event loop between pages. */
  pageSize?: number;
  /** Checked between pages: true stops the walk (the store is closing). */
  stopped?: () => boolean;
}

const PAGE = 500;

/**
 * Clean-up of what a crash (SIGKILL, power loss) can leave behind in storage: sessions whose
 * completion was cut between the file record (the commit point) and the session's removal,
 * blobs of part PUTs cut before their record was written, replaced parts whose old blob was
 * not yet deleted, and the part records of a session whose removal stopped half-way.
 *
 * Only where this process alone writes storage. It runs after the server listens (start-up must not grow with what is stored), in pages of
 * records, so requests go on meanwhile. A blob is garbage only if no part read before the
 * files, no file, and no PUT in flight or begun since the walk started names it: parts are
 * read before files (a completion moving blobs from parts to a file is seen on one side or
 * the other), and every blob a PUT writes meanwhile is exempt (StorageService.newBlobs).
 */
export async function recoverStorage(svc: StorageService, opts: RecoveryOptions): Promise<Recovered> {
  const size = opts.pageSize ?? PAGE;
  const stopped = opts.stopped ?? (() => false);
  const out: Recovered = { ghosts: 0, parts: 0, blobs: 0 };
  svc.newBlobs = new Set(svc.writing);
  try {
    await pages(svc.uploads, size, stopped, async (s) => {
      if (svc.completing.has(s.upload_id) || !(await committedFile(svc, s))) return;
      await dropUpload(svc, s);
      out.ghosts++;
    });
    if (stopped()) return out;
    const used = new Set<string>();
    await pages(svc.parts, size, stopped, async (p) => {
      if (await svc.uploads.get(p.upload_id)) used.add(p.blob);
      else if (await svc.parts.delete(partKey(p.upload_id, p.part_number))) out.parts++;
    });
    const fileUploads = new Set<string>();
    await pages(svc.files, size, stopped, async (f) => {
      fileUploads.add(f.upload_id);
      for (const part of f.parts) used.add(part.blob);
    });
    if (stopped()) return out;
    const fresh = svc.newBlobs;
    const orphans = (await svc.blobs.keys()).filter((k) => !used.has(k) && !fresh.has(k));
    for (let i = 0; i < orphans.length && !stopped(); i += size) {
      await Promise.all(orphans.slice(i, i + size).map((k) => svc.blobs.delete(k)));
      out.blobs += Math.min(size, orphans.length - i);
      await turn();
    }
    // Folders of sessions that are gone entirely (no session, no file): nothing in them is used.
    const gone = new Set(
      orphans
        .map((k) => /^uploads\/([^/]+)\//.exec(k)?.[1])
        .filter((id): id is string => id !== undefined && !fileUploads.has(id)),
    );
    for (const id of gone)
      if (!stopped() && !(await svc.uploads.get(id))) await svc.blobs.deletePrefix(uploadPrefix(id));
    return out;
  } finally {
    svc.newBlobs = undefined;
  }
}

/** Every record of `col`, `size` at a time in id order, a turn of the event loop between pages. */
async function pages<T>(
  col: { page(after: string | undefined, limit: number): Promise<Array<[string, T]>> },
  size: number,
  stopped: () => boolean,
  visit: (value: T) => Promise<void>,
): Promise<void> {
  let after: string | undefined;
  while (!stopped()) {
    const page = await col.page(after, size);
    for (const [, value] of page) await visit(value);
    if (page.length < size) return;
    after = page.at(-1)![0];
    await turn();
  }
}

const turn = () => new Promise<void>((r) => setImmediate(r));

/**
 * The recovery of one running simulator: scheduled once it listens, begun at once by `done`
 * (tests), stopped before the store closes.
 */
export class StorageRecovery {
  private running: Promise<Recovered> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private halted = false;

  constructor(
    private readonly svc: StorageService,
    private readonly opts: Omit<RecoveryOptions, 'stopped'>,
    private readonly report: (r: Recovered | Error) => void,
  ) {}

  /** Begin after `delayMs`: once the first requests are served and the store's load has begun. */
  schedule(delayMs: number): void {
    if (this.running || this.timer || this.halted) return;
    this.timer = setTimeout(() => {
      this.done().catch(() => {});
    }, delayMs);
    this.timer.unref();
  }

  /** Begin now unless begun; resolves once finished. */
  done(): Promise<Recovered> {
    clearTimeout(this.timer);
    this.running ??= recoverStorage(this.svc, { ...this.opts, stopped: () => this.halted }).then(
      (r) => {
        this.report(r);
        return r;
      },
      (e: Error) => {
        this.report(e);
        throw e;
      },
    );
    return this.running;
  }

  /** Stop between pages and wait for the page in progress (its writes must land first). */
  async stop(): Promise<void> {
    clearTimeout(this.timer);
    this.halted = true;
    await this.running?.catch(() => undefined);
  }
}
