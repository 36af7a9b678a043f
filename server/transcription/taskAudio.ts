import { BoundedMap } from '../core/boundedMap.js';
import type { FileSource } from '../domain/fileSource.js';
import type { Collection } from '../store/store.js';
import { probeAudio } from './audio.js';
import type { AudioInfo, TaskRecord } from './model.js';

type StorageSource = Extract<TaskRecord['source'], { kind: 'storage' }>;

const AUDIO_CACHE = 1024;

/**
 * The audio behind tasks of storage files: read once per task (right after submission, in the
 * background), its duration written back to the task, and cached per app and audio so repeated
 * uploads of the same bytes are read once. Never across apps: a cache hit would tell an app
 * that another one uploaded the same bytes.
 */
export class TaskAudio {
  private readonly probes = new Map<string, Promise<TaskRecord | undefined>>();
  private readonly audioCache = new BoundedMap<string, Promise<AudioInfo>>(AUDIO_CACHE);

  constructor(
    private readonly tasks: Collection<TaskRecord>,
    private readonly files: FileSource | undefined,
  ) {}

  clear(): void {
    this.probes.clear();
    this.audioCache.clear();
  }

  /** The record with its audio read (storage files only); concurrent callers share one read. */
  async withAudio(rec: TaskRecord): Promise<TaskRecord> {
    if (rec.source.kind !== 'storage' || rec.audio) return rec;
    let probe = this.probes.get(rec.transcription_id);
    if (!probe) {
      probe = this.readAudio(rec.transcription_id, rec.client_id, rec.source).finally(() =>
        this.probes.delete(rec.transcription_id),
      );
      this.probes.set(rec.transcription_id, probe);
    }
    return (await probe) ?? rec;
  }

  private async readAudio(
    id: string,
    clientId: string,
    file: StorageSource,
  ): Promise<TaskRecord | undefined> {
    const audio = await this.audioOf(clientId, file);
    // Re-read: the task may have been pinned or removed while the audio was read.
    return this.tasks.update(id, (latest) => {
      if (!latest) return { result: undefined };
      const next = { ...latest, audio };
      return { next, result: next };
    });
  }

  /**
   * One read per app and distinct audio (MD5 and type: the type picks the parser), shared by
   * concurrent and later tasks of that app. The file is found by id: the submission checked
   * its URL, which may have expired since (a restart).
   */
  private audioOf(clientId: string, source: StorageSource): Promise<AudioInfo> {
    const key = `${clientId}\u0000${source.md5}\u0000${source.filetype}`;
    let p = this.audioCache.get(key);
    if (!p) {
      // Cached at once (before the file is found), so concurrent callers share one read.
      p = this.probeFile(key, source.file_id);
      this.audioCache.set(key, p);
    }
    return p;
  }

  private async probeFile(key: string, fileId: string): Promise<AudioInfo> {
    const found = await this.files?.byId(fileId);
    if (found?.status !== 'found') {
      // Not remembered: the same audio may be found under another file later.
      this.audioCache.delete(key);
      const reason = found?.reason ?? 'storage unavailable';
      return { ok: false, message: `The audio file could not be downloaded: ${reason}` };
    }
    return probeAudio({ ...found.file, open: found.open, path: found.path });
  }
}
