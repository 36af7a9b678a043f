import type { ClockOf } from '../core/clock.js';
import type { AppRegistry } from '../domain/apps.js';
import type { BlobStore } from '../store/blobStore.js';
import type { Collection } from '../store/store.js';
import type { HashPool } from './hashPool.js';
import type { Presigner } from './presign.js';
import type { FileRecord, PartRecord, UploadRecord } from './records.js';
import type { RunningMd5 } from './runningMd5.js';

/**
 * What the storage service's helpers (part upload, completion, downloads, housekeeping) work
 * on: its collections, bytes and shared state. `StorageService` is the one implementation; the
 * helpers depend on this shape, not on the service, so no module of `storage/` imports back
 * the service that imports it.
 */
export interface StorageContext {
  readonly uploads: Collection<UploadRecord>;
  readonly parts: Collection<PartRecord>;
  readonly files: Collection<FileRecord>;
  readonly blobs: BlobStore;
  readonly apps: AppRegistry;
  readonly clockOf: ClockOf;
  readonly presigner: Presigner;
  /** Uploads being completed right now: their parts must not change underneath. */
  readonly completing: Map<string, Promise<unknown>>;
  /** Blobs a part PUT is writing now (its record not yet written): never garbage. */
  readonly writing: Set<string>;
  /** While a recovery walk runs (recovery.ts): every blob in flight or begun since it began. */
  newBlobs: Set<string> | undefined;
  readonly hashes: HashPool;
  readonly fileMd5: RunningMd5;
  /** The time on the clock of the app a presigned URL names, for `Presigner.verify`. */
  readonly urlNow: (signer: string | undefined) => number;
  /** A live session, or undefined (unknown, completed, swept or past its lifetime). */
  session(uploadId: string): Promise<UploadRecord | undefined>;
  /** The signed DownloadUrl of a completed file. */
  downloadUrl(file: FileRecord, publicUrl: string): string;
  /** A fresh suffix for a blob name. */
  blobName(): string;
}
