import type { PartnerApp } from '../domain/apps.js';
import type { FileLookup } from '../domain/fileSource.js';
import { type EngineSettings, planEngine } from './engineWork.js';
import { normalizeParams, type Override, type TaskRecord, type TranscriptionParams } from './model.js';

/** Where a task's audio comes from: a file of this storage, one it refused, or an external URL. */
function taskSource(found: FileLookup | undefined): TaskRecord['source'] {
  if (found === undefined) return { kind: 'external' };
  if (found.status !== 'found')
    return { kind: 'unavailable', message: `The audio file could not be downloaded: ${found.reason}` };
  return {
    kind: 'storage',
    file_id: found.file.file_id,
    md5: found.file.md5,
    filetype: found.file.filetype,
    size: found.file.size,
  };
}

/** A submitted task as stored: its source, the fault outcome it ends in, its engine plan, whether to fetch. */
export function newTask(t: {
  id: string;
  app: PartnerApp;
  req: { file_url: string; params?: TranscriptionParams };
  createdMs: number;
  found: FileLookup | undefined;
  outcome: Override | undefined;
  engine: EngineSettings | undefined;
  fetchExternal: boolean;
}): TaskRecord {
  const source = taskSource(t.found);
  const params = normalizeParams(t.req.params);
  return {
    transcription_id: t.id,
    client_id: t.app.client_id,
    file_url: t.req.file_url,
    params,
    created_ms: t.createdMs,
    source,
    ...(t.outcome ? { outcome: t.outcome } : {}),
    ...(t.engine && source.kind === 'storage' ? { engine: planEngine(source.md5, params, t.engine) } : {}),
    ...(source.kind === 'external' && t.fetchExternal ? { fetching: true as const } : {}),
  };
}
