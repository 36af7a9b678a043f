import type { ClockOf } from '../core/clock.js';
import { SimError } from '../core/errors.js';
import type { Lifecycle } from '../core/lifecycle.js';
import type { Random } from '../core/random.js';
import type { AppRegistry } from '../domain/apps.js';
import type { FileLookup, FileSource } from '../domain/fileSource.js';
import type { TokenClaims } from '../domain/tokens.js';
import { AppBound } from '../store/appBound.js';
import type { BlobStore } from '../store/blobStore.js';
import { PagedSweep } from '../store/pagedSweep.js';
import type { Collection, Store } from '../store/store.js';
import { type CompleteRequest, completeUpload } from './completion.js';
import type { StorageContext } from './context.js';
import { type Download, download, filePath, lookupId, lookupUrl } from './downloads.js';
import { type HashPool, hashPool } from './hashPool.js';
import { committedFile, dropApp, dropFile, dropUpload, sweepAbandoned } from './housekeeping.js';
import { MAX_PARTS, type PartUpload, putPart } from './partUpload.js';
import { accessKeyOf, Presigner } from './presign.js';
import { type FileRecord, LIVE_FILETYPES, type PartRecord, type UploadRecord } from './records.js';
import { RunningMd5 } from './runningMd5.js';

export interface StorageSettings {
  chunkSize: number;
  maxFileSize: number;
  presignExpiryS: number;
  downloadExpiryS: number;
  uploadTtlS: number;
  /** Accepted besides LIVE_FILETYPES. */
  uploadFiletypes: readonly string[];
  /** `--storage-host`: URLs are S3's virtual-host form on it, `https://<host>/<key>?X-Amz-…`. */
  storageHost?: string | undefined;
  /** `--keep-per-app`: open sessions and completed files each app keeps (0: no bound). */
  keepPerApp?: number | undefined;
}

/** The region an S3 host name carries (`<bucket>.s3.<region>.amazonaws.com`), for the credential scope. */
const s3RegionOf = (host: string | undefined): string | undefined =>
  host === undefined ? undefined : /\.s3[.-]([a-z0-9-]+)\.amazonaws\.com$/.exec(host)?.[1];

/**
 * The fake S3 bucket behind upload sessions: presigned part URLs, streamed part storage with
 * real ETags (partUpload.ts), verified completion (completion.ts), presigned downloads and the
 * FileSource the transcription service resolves DownloadUrls through (downloads.ts), and
 * housekeeping the background timer runs (housekeeping.ts). Bytes live in the BlobStore; sessions, parts and
 * files are small records in the Store, each with its app's client_id.
 */
export class StorageService implements StorageContext, FileSource, Lifecycle {
  readonly uploads: Collection<UploadRecord>;
  readonly parts: Collection<PartRecord>;
  readonly files: Collection<FileRecord>;
  readonly presigner: Presigner;
  private readonly sweeping: PagedSweep<UploadRecord>;
  /** Uploads being completed right now: their parts must not change underneath. */
  readonly completing = new Map<string, Promise<unknown>>();
  /** Blobs a part PUT is writing now (its record not yet written): never garbage. */
  readonly writing = new Set<string>();
  /** While a recovery walk runs (recovery.ts): every blob in flight or begun since it began. */
  newBlobs: Set<string> | undefined;
  /** MD5 off the main thread: part bodies as they stream in, and running file hashes. */
  readonly hashes: HashPool = hashPool();
  readonly fileMd5: RunningMd5;
  /** Blob names draw from their own stream, so PUTs do not shift the ids clients see. */
  private readonly blobNames: Random;
  /** The filetypes generate-presigned-urls accepts: live's pair plus --upload-filetypes. */
  private readonly filetypes: ReadonlySet<string>;
  /** Each app's newest sessions and files stay; older ones go with their bytes (appBound.ts). */
  readonly bounds: { uploads: AppBound<UploadRecord>; files: AppBound<FileRecord> };

  constructor(
    store: Store,
    readonly blobs: BlobStore,
    readonly apps: AppRegistry,
    readonly clockOf: ClockOf,
    private readonly random: Random,
    secret: Buffer,
    readonly settings: StorageSettings,
  ) {
    this.uploads = store.collection<UploadRecord>('uploads');
    this.parts = store.collection<PartRecord>('uploadParts');
    this.files = store.collection<FileRecord>('files');
    this.sweeping = new PagedSweep(this.uploads);
    this.presigner = new Presigner(secret, s3RegionOf(settings.storageHost));
    this.fileMd5 = new RunningMd5(this.hashes, blobs);
    this.blobNames = random.fork('blobs');
    this.filetypes = new Set([...LIVE_FILETYPES, ...settings.uploadFiletypes]);
    const keep = settings.keepPerApp ?? 0;
    this.bounds = {
      uploads: new AppBound({
        name: 'upload sessions',
        collection: this.uploads,
        keep,
        order: 'created_ms',
        drop: async (id) => {
          const s = await this.uploads.get(id);
          if (!s || this.completing.has(id)) return false;
          await dropUpload(this, s);
          return true;
        },
      }),
      files: new AppBound({
        name: 'files',
        collection: this.files,
        keep,
        order: 'created_ms',
        drop: async (id) => {
          const f = await this.files.get(id);
          if (f) await dropFile(this, f);
          return f !== undefined;
        },
      }),
    };
  }

  /** generate-presigned-urls: a session of ceil(filesize / ChunkSize) presigned parts. */
  async createUpload(user: TokenClaims, filesize: number, filetype: string, publicUrl: string) {
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
    // The schema admits any plausible extension, so this answer comes from here, as live's does.
    if (!this.filetypes.has(filetype)) {
      throw SimError.badRequest(
        'FILE_TYPE_INVALID',
        `filetype ${filetype} is not accepted; accepted: ${[...this.filetypes].join(', ')}. The live service takes ` +
          `only mp3 and opus; to try ${filetype} here, start the simulator with --upload-filetypes ${filetype} ` +
          '(or PARTNER_SIM_UPLOAD_FILETYPES)',
      );
    }
    const now = this.clockOf(user.client_id).now();

    const rec: UploadRecord = {
      upload_id: `u_${this.random.hex(16)}`,
      file_id: `file_${this.random.hex(16)}`,
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
    this.bounds.uploads.touch(rec.client_id);
    const path = `/uploads/${rec.file_id}`;
    const Parts = Array.from({ length: rec.part_count }, (_, i) => {
      const extra = { partNumber: String(i + 1), uploadId: rec.upload_id };
      const qs = this.presigner.sign(
        'PUT',
        path,
        extra,
        now,
        this.settings.presignExpiryS,
        accessKeyOf(user.client_id),
      );
      return { PartNumber: i + 1, PresignedUrl: this.urlOf(publicUrl, path, qs) };
    });
    return { FileId: rec.file_id, UploadId: rec.upload_id, ChunkSize: chunk, Parts };
  }

  /** A live session, or undefined (unknown, completed, swept or past its lifetime). */
  async session(uploadId: string): Promise<UploadRecord | undefined> {
    const s = await this.uploads.get(uploadId);
    return s && s.expires_ms > this.clockOf(s.client_id).now() && !(await committedFile(this, s))
      ? s
      : undefined;
  }

  putPart(p: PartUpload): Promise<{ etag: string }> {
    return putPart(this, p);
  }

  async complete(user: TokenClaims, req: CompleteRequest, publicUrl: string) {
    const done = await completeUpload(this, user, req, publicUrl);
    this.bounds.files.touch(user.client_id);
    return done;
  }

  /** The time on the clock of the app a presigned URL names, for `Presigner.verify`. */
  readonly urlNow = (signer: string | undefined): number =>
    // An unknown signer fails the signature check anyway; it gets the instance clock.
    this.clockOf(signer !== undefined && this.apps.get(signer) ? signer : undefined).now();

  /** The signed DownloadUrl of a completed file. */
  downloadUrl(file: FileRecord, publicUrl: string): string {
    const path = filePath(file.file_id);
    const qs = this.presigner.sign(
      'GET',
      path,
      {},
      this.clockOf(file.client_id).now(),
      this.settings.downloadExpiryS,
      accessKeyOf(file.client_id),
    );
    return this.urlOf(publicUrl, path, qs);
  }

  /**
   * A signed storage address: on the simulator's own address under /storage, or with
   * --storage-host as S3 writes them (the signature covers the key path, not the host).
   */
  private urlOf(publicUrl: string, path: string, qs: string): string {
    const host = this.settings.storageHost;
    return host ? `https://${host}${path}?${qs}` : `${publicUrl}/storage${path}?${qs}`;
  }

  download(fileId: string, query: URLSearchParams, rangeHeader: string | undefined): Promise<Download> {
    return download(this, fileId, query, rangeHeader);
  }

  lookup(fileUrl: string, ownUrl?: string): Promise<FileLookup | undefined> {
    return lookupUrl(this, fileUrl, ownUrl);
  }

  byId(fileId: string): Promise<FileLookup> {
    return lookupId(this, fileId);
  }

  /** The app owning an upload session (fault matching and the journal on the storage host). */
  async ownerOfUpload(uploadId: string | undefined): Promise<string | undefined> {
    return uploadId ? (await this.uploads.get(uploadId))?.client_id : undefined;
  }

  /** The app owning a completed file. */
  async ownerOfFile(fileId: string | undefined): Promise<string | undefined> {
    return fileId ? (await this.files.get(fileId))?.client_id : undefined;
  }

  /** A fresh suffix for a blob name (see blobNames). */
  blobName(): string {
    return this.blobNames.hex(6);
  }

  /**
   * Abandoned sessions (past `expires_ms` on their app's clock) removed with their bytes, one
   * page of sessions per round: the background housekeeper's work. Until then an expired
   * session already behaves as gone (`session()` checks the clock).
   */
  sweep(budget: number): Promise<number> {
    return sweepAbandoned(this, this.sweeping, budget);
  }

  /** The abandoned-upload sweep has more sessions to look at this round. */
  get sweepBehind(): boolean {
    return this.sweeping.more;
  }

  async resetAll(): Promise<void> {
    this.fileMd5.clear();
    await this.blobs.clear();
  }

  resetApp(clientId: string): Promise<void> {
    return dropApp(this, clientId);
  }
}
