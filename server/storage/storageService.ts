import type { Readable } from 'node:stream';
import type { Clock } from '../core/clock.js';
import { SimError } from '../core/errors.js';
import type { Lifecycle } from '../core/lifecycle.js';
import type { Random } from '../core/random.js';
import type { AppRegistry } from '../domain/apps.js';
import type { FileLookup, FileSource } from '../domain/fileSource.js';
import type { TokenClaims } from '../domain/tokens.js';
import type { Collection, Store } from '../store/store.js';
import type { BlobStore, ByteRange } from './blobStore.js';
import { type CompleteRequest, completeUpload, noSuchUpload } from './completion.js';
import { Presigner } from './presign.js';
import { type FileRecord, type PartRecord, partKey, type UploadRecord, uploadPrefix } from './records.js';
import { openParts, receive } from './streams.js';

export interface StorageSettings {
  chunkSize: number;
  maxFileSize: number;
  presignExpiryS: number;
  downloadExpiryS: number;
  uploadTtlS: number;
}

export interface PartUpload {
  fileId: string;
  partNumber: string | undefined;
  uploadId: string | undefined;
  /** The whole query string, as sent (the signature covers it). */
  query: URLSearchParams;
  contentLength: string | undefined;
  contentMd5: string | undefined;
  body: Readable;
}

const MAX_PARTS = 10_000;
const SWEEP_EVERY_MS = 60_000;

/**
 * The fake S3 bucket behind upload sessions: presigned part URLs, streamed part storage with
 * real ETags, verified completion (completion.ts), presigned downloads, and the FileSource
 * the transcription service resolves DownloadUrls through. Bytes live in the BlobStore;
 * sessions, parts and files are small records in the Store, each with its app's client_id.
 */
export class StorageService implements FileSource, Lifecycle {
  readonly uploads: Collection<UploadRecord>;
  readonly parts: Collection<PartRecord>;
  readonly files: Collection<FileRecord>;
  readonly presigner: Presigner;
  /** Uploads being completed right now: their parts must not change underneath. */
  readonly completing = new Map<string, Promise<unknown>>();
  private lastSweep = Number.NEGATIVE_INFINITY;

  constructor(
    store: Store,
    readonly blobs: BlobStore,
    private readonly apps: AppRegistry,
    readonly clock: Clock,
    private readonly random: Random,
    secret: Buffer,
    readonly settings: StorageSettings,
  ) {
    this.uploads = store.collection<UploadRecord>('uploads');
    this.parts = store.collection<PartRecord>('uploadParts');
    this.files = store.collection<FileRecord>('files');
    this.presigner = new Presigner(secret);
  }

  /** generate-presigned-urls: a session of ceil(filesize / ChunkSize) presigned parts. */
  async createUpload(user: TokenClaims, filesize: number, filetype: string, publicUrl: string) {
    await this.sweep();
    const chunk = this.settings.chunkSize;
    const max = Math.min(this.settings.maxFileSize, chunk * MAX_PARTS);
    if (!Number.isSafeInteger(filesize) || filesize < 1 || filesize > max) {
      throw SimError.invalidField(
        ['body', 'filesize'],
        `filesize must be between 1 and ${max} bytes`,
        'value_error',
        filesize,
      );
    }
    const now = this.clock.now();
    const rec: UploadRecord = {
      upload_id: `u_${this.random.hex(16)}`,
      file_id: `f_${this.random.hex(16)}`,
      client_id: user.client_id,
      sub: user.sub,
      filetype,
      filesize,
      chunk_size: chunk,
      part_count: Math.ceil(filesize / chunk),
      created_ms: now,
      expires_ms: now + this.settings.uploadTtlS * 1000,
    };
    await this.uploads.put(rec.upload_id, rec);
    const base = `${publicUrl}/storage/uploads/${rec.file_id}`;
    const Parts = Array.from({ length: rec.part_count }, (_, i) => {
      const extra = { partNumber: String(i + 1), uploadId: rec.upload_id };
      const qs = this.presigner.sign(
        'PUT',
        `/uploads/${rec.file_id}`,
        extra,
        now,
        this.settings.presignExpiryS,
      );
      return { PartNumber: i + 1, PresignedUrl: `${base}?${qs}` };
    });
    return { FileId: rec.file_id, UploadId: rec.upload_id, ChunkSize: chunk, Parts };
  }

  /** A live session, or undefined (unknown, completed, swept or past its lifetime). */
  session(uploadId: string): UploadRecord | undefined {
    const s = this.uploads.get(uploadId);
    return s && s.expires_ms > this.clock.now() ? s : undefined;
  }

  /**
   * PUT of a part, checked in S3's order: signature parameters, expiry, signature, part
   * number, session, declared size and Content-MD5 syntax; then the body is streamed to a
   * fresh blob while hashed, and only a complete, verified part replaces the previous one.
   */
  async putPart(p: PartUpload): Promise<{ etag: string }> {
    const path = `/uploads/${p.fileId}`;
    this.presigner.verify('PUT', path, p.query, this.clock.now());
    const part = Number(p.partNumber);
    if (!/^\d{1,5}$/.test(p.partNumber ?? '') || part < 1 || part > MAX_PARTS) {
      throw SimError.badRequest(
        'InvalidArgument',
        'Part number must be an integer between 1 and 10000, inclusive',
      );
    }
    const s = this.session(p.uploadId ?? '');
    if (!s || s.file_id !== p.fileId || this.completing.has(s.upload_id)) throw noSuchUpload(path);
    if (p.contentLength !== undefined && Number(p.contentLength) > s.chunk_size) {
      throw tooLarge(s.chunk_size);
    }
    let wantMd5: Buffer | undefined;
    if (p.contentMd5 !== undefined) {
      wantMd5 = Buffer.from(p.contentMd5, 'base64');
      if (wantMd5.length !== 16 || wantMd5.toString('base64') !== p.contentMd5.trim()) {
        throw SimError.badRequest('InvalidDigest', 'The Content-MD5 you specified was invalid.');
      }
    }
    const blob = `${uploadPrefix(s.upload_id)}/${part}-${this.random.hex(6)}`;
    let got: Awaited<ReturnType<typeof receive>>;
    try {
      got = await receive(p.body, await this.blobs.sink(blob), s.chunk_size);
    } catch {
      await this.blobs.delete(blob);
      throw SimError.badRequest('IncompleteBody', 'The request body ended before all bytes arrived.');
    }
    const reject = async (err: SimError): Promise<never> => {
      await this.blobs.delete(blob);
      throw err;
    };
    if (got.tooLarge) return reject(tooLarge(s.chunk_size));
    if (wantMd5 && !wantMd5.equals(got.md5)) {
      return reject(
        SimError.badRequest('BadDigest', 'The Content-MD5 you specified did not match what we received.'),
      );
    }
    // The session may have been completed, reset or swept while the bytes streamed in.
    if (!this.session(s.upload_id) || this.completing.has(s.upload_id)) return reject(noSuchUpload(path));
    const md5 = got.md5.toString('hex');
    const key = partKey(s.upload_id, part);
    const previous = this.parts.get(key);
    await this.parts.put(key, {
      upload_id: s.upload_id,
      client_id: s.client_id,
      part_number: part,
      size: got.size,
      md5,
      blob,
      stored_ms: this.clock.now(),
    });
    if (previous && previous.blob !== blob) await this.blobs.delete(previous.blob);
    const quotes = this.apps.get(s.client_id)?.etag_quotes ?? 'keep';
    return { etag: quotes === 'strip' ? md5 : `"${md5}"` };
  }

  complete(user: TokenClaims, req: CompleteRequest, publicUrl: string) {
    return completeUpload(this, user, req, publicUrl);
  }

  /** The signed DownloadUrl of a completed file. */
  downloadUrl(file: FileRecord, publicUrl: string): string {
    const qs = this.presigner.sign(
      'GET',
      `/files/${file.file_id}`,
      {},
      this.clock.now(),
      this.settings.downloadExpiryS,
    );
    return `${publicUrl}/storage/files/${file.file_id}?${qs}`;
  }

  /** GET/HEAD of a DownloadUrl: signature first (a HEAD may use the GET URL), then the key. */
  resolveDownload(fileId: string, query: URLSearchParams): FileRecord {
    this.presigner.verify('GET', `/files/${fileId}`, query, this.clock.now());
    const file = this.files.get(fileId);
    if (!file) {
      throw SimError.notFound('NoSuchKey', 'The specified key does not exist.');
    }
    return file;
  }

  open(file: FileRecord, range?: ByteRange): Readable {
    return openParts(this.blobs, file.parts, range);
  }

  /** FileSource: resolve a DownloadUrl of this simulator without going through HTTP. */
  lookup(fileUrl: string): FileLookup | undefined {
    let url: URL;
    try {
      url = new URL(fileUrl);
    } catch {
      return undefined;
    }
    const m = /\/storage\/files\/([A-Za-z0-9_-]+)$/.exec(url.pathname);
    if (!m || !url.searchParams.get('X-Amz-Credential')?.startsWith('SIMACCESSKEY/')) return undefined;
    let file: FileRecord;
    try {
      file = this.resolveDownload(m[1]!, url.searchParams);
    } catch (e) {
      const err = e as SimError;
      if (err.code === 'AccessDenied') return { status: 'expired', reason: err.message };
      if (err.code === 'NoSuchKey') return { status: 'missing', reason: err.message };
      return { status: 'invalid', reason: `${err.code}: ${err.message}` };
    }
    const { file_id, client_id, filetype, size, md5, etag } = file;
    // A one-part file is one blob: on disk, readers (e.g. music-metadata) may use its path.
    const path = file.parts.length === 1 ? this.blobs.path(file.parts[0]!.blob) : undefined;
    return {
      status: 'found',
      file: { file_id, client_id, filetype, size, md5, etag },
      open: () => this.open(file),
      ...(path ? { path } : {}),
    };
  }

  /**
   * Remove one session with its part records and bytes; when it became a file, the blobs in
   * `keep` (the file's) stay and only unused ones go.
   */
  async dropUpload(s: UploadRecord, keep?: Set<string>): Promise<void> {
    await this.uploads.delete(s.upload_id);
    const keys = Array.from({ length: s.part_count }, (_, i) => partKey(s.upload_id, i + 1));
    const unused = keys.map((k) => this.parts.get(k)?.blob).filter((b) => b && !keep?.has(b));
    await Promise.all(keys.map((k) => this.parts.delete(k)));
    if (!keep) await this.blobs.deletePrefix(uploadPrefix(s.upload_id));
    else await Promise.all(unused.map((b) => this.blobs.delete(b!)));
  }

  /**
   * Housekeeping without timers: abandoned sessions (past `expires_ms` on the injected clock)
   * are removed when a session is created or completed, at most once a simulated minute.
   * Until then an expired session already behaves as gone (`session()` checks the clock).
   */
  async sweep(): Promise<number> {
    const now = this.clock.now();
    if (Math.abs(now - this.lastSweep) < SWEEP_EVERY_MS) return 0;
    this.lastSweep = now;
    const stale = this.uploads.filter((s) => s.expires_ms <= now && !this.completing.has(s.upload_id));
    for (const s of stale) await this.dropUpload(s);
    return stale.length;
  }

  async resetAll(): Promise<void> {
    this.lastSweep = Number.NEGATIVE_INFINITY;
    await this.blobs.clear();
  }

  async resetApp(clientId: string): Promise<void> {
    for (const s of this.uploads.filter((u) => u.client_id === clientId)) await this.dropUpload(s);
    await this.parts.deleteWhere((p) => p.client_id === clientId);
    for (const f of this.files.filter((x) => x.client_id === clientId)) {
      await this.files.delete(f.file_id);
      await this.blobs.deletePrefix(uploadPrefix(f.upload_id));
    }
  }
}

const tooLarge = (max: number): SimError =>
  SimError.badRequest(
    'EntityTooLarge',
    `Your proposed upload exceeds the maximum allowed size (${max} bytes).`,
  );
