import { randomBytes } from 'node:crypto';
import { mkdir, open } from 'node:fs/promises';
import { join } from 'node:path';

/** What the log of a recording says about the session, beside HAR's own fields. */
export interface SessionMeta {
  /** The app (client_id) the session's requests authenticated as, once one did. */
  app?: string;
  region?: string;
  /** Where the traffic went (live host or URL). */
  upstream: string;
}

/**
 * One HAR 1.2 file per recording session, valid JSON after every entry: the entries are
 * written in place of the closing part, which is written again after them, and synced before
 * the exchange's answer reaches the client. A crash loses nothing a client was answered, and
 * leaves a file any HAR reader opens (at worst the entry being written is missing).
 */
export class HarFile {
  private end = 0;
  private size = 0;
  private count = 0;
  private chain: Promise<unknown> = Promise.resolve();

  private constructor(
    readonly path: string,
    private readonly fh: import('node:fs/promises').FileHandle,
    private meta: SessionMeta,
  ) {}

  static async create(dir: string, meta: SessionMeta, version: string, now = new Date()): Promise<HarFile> {
    await mkdir(dir, { recursive: true });
    const stamp = now.toISOString().replace(/[:.]/g, '-');
    const path = join(dir, `partner-sim-${stamp}-${randomBytes(3).toString('hex')}.har`);
    const fh = await open(path, 'wx', 0o600);
    const file = new HarFile(path, fh, meta);
    const head = `{"log":{"version":"1.2","creator":{"name":"partner-sim","version":${JSON.stringify(version)}},"comment":"recorded by partner-sim serve --record; secrets redacted (docs/recording.md)","entries":[`;
    file.end = Buffer.byteLength(head);
    await file.write(head, 0);
    return file;
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
      const chunk = `${this.count === 0 ? '\n' : ',\n'}${JSON.stringify(entry)}`;
      const at = this.end;
      this.end += Buffer.byteLength(chunk);
      this.count++;
      await this.write(chunk, at);
    });
    this.chain = next.catch(() => {});
    return next;
  }

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
