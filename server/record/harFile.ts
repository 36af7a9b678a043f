import { randomBytes } from 'node:crypto';
import { type FileHandle, mkdir, open } from 'node:fs/promises';
import { join } from 'node:path';

/** What the log of a recording says about the session, beside HAR's own fields. */
export interface SessionMeta {
  /** The app (client_id) the session's requests authenticated as, once one did. */
  app?: string;
  region?: string;
  /** Where the traffic went (live host or URL). */
  upstream: string;
}

export interface HarFileOptions {
  /** Past this many bytes the file is closed and the session goes on in a new one. */
  maxSize?: number;
}

/**
 * A recording session's HAR 1.2 files, each valid JSON after every entry: the entries are
 * written in place of the closing part, which is written again after them, and synced before
 * the exchange's answer ends. A crash loses nothing a client was answered, and
 * leaves a file any HAR reader opens (at worst the entry being written is missing).
 *
 * A recorder runs for weeks: an entry that would take the file past `maxSize` goes to a new
 * file instead (`path` then names it), so no file grows without end and each is a whole HAR.
 */
export class HarFile {
  private end = 0;
  private size = 0;
  private count = 0;
  private chain: Promise<unknown> = Promise.resolve();
  private fh!: FileHandle;
  private current = '';

  private constructor(
    private readonly dir: string,
    private meta: SessionMeta,
    private readonly head: string,
    private readonly maxSize: number,
  ) {}

  static async create(
    dir: string,
    meta: SessionMeta,
    version: string,
    o: HarFileOptions = {},
  ): Promise<HarFile> {
    await mkdir(dir, { recursive: true });
    const head = `{"log":{"version":"1.2","creator":{"name":"partner-sim","version":${JSON.stringify(version)}},"comment":"recorded by partner-sim serve --record; secrets redacted (docs/recording.md)","entries":[`;
    const file = new HarFile(dir, meta, head, o.maxSize ?? Number.POSITIVE_INFINITY);
    await file.start();
    return file;
  }

  /** The file being written now. */
  get path(): string {
    return this.current;
  }

  /** A new file, named for the time it starts. */
  private async start(): Promise<void> {
    const stamp = new Date().toISOString().replace(/[:.]/g, '-');
    const path = join(this.dir, `partner-sim-${stamp}-${randomBytes(3).toString('hex')}.har`);
    this.fh = await open(path, 'wx', 0o600);
    this.current = path;
    this.count = 0;
    this.size = 0;
    this.end = Buffer.byteLength(this.head);
    await this.write(this.head, 0);
  }

  /** The metadata of the session so far (the app is learnt from the first request naming one). */
  get session(): SessionMeta {
    return { ...this.meta };
  }

  update(meta: Partial<SessionMeta>): void {
    this.meta = { ...this.meta, ...meta };
  }

  /** Append one HAR entry; resolves once it is on disk. Entries are written in call order. */
  append(entry: object): Promise<void> {
    const next = this.chain.then(async () => {
      const json = JSON.stringify(entry);
      // An entry larger than a whole file still gets one: it is written, never dropped.
      if (this.count > 0 && this.end + Buffer.byteLength(json) + 2 + this.trailer().length > this.maxSize) {
        await this.fh.close();
        await this.start();
      }
      const chunk = `${this.count === 0 ? '\n' : ',\n'}${json}`;
      const at = this.end;
      this.end += Buffer.byteLength(chunk);
      this.count++;
      await this.write(chunk, at);
    });
    this.chain = next.catch(() => {});
    return next;
  }

  /** Entries in the current file. */
  get entries(): number {
    return this.count;
  }

  /** Wait for pending writes and close the file (it is already complete). */
  async close(): Promise<void> {
    await this.chain;
    await this.fh.close();
  }

  private trailer(): string {
    const { app, region, upstream } = this.meta;
    const meta = { _app: app ?? null, _region: region ?? null, _upstream: upstream };
    return `\n],${JSON.stringify(meta).slice(1, -1)}}}\n`;
  }

  private async write(text: string, at: number): Promise<void> {
    const data = Buffer.from(text + this.trailer());
    await this.fh.write(data, 0, data.length, at);
    const size = at + data.length;
    if (size < this.size) await this.fh.truncate(size);
    this.size = size;
    await this.fh.datasync();
  }
}
