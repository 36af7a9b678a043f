import type { Request, Response } from 'express';
import { simLocals } from '../http/types.js';
import type { Services } from '../services.js';

const first = (v: unknown): string | undefined =>
  typeof v === 'string' ? v : Array.isArray(v) && typeof v[0] === 'string' ? v[0] : undefined;

/**
 * The app a request belongs to, for fault matching and the journal alike: the authenticated
 * app on the partner API; on the storage host (no credentials) the owner of the upload session
 * or file the presigned URL names, asked of the storage service once per request.
 */
export function requestOwner(
  services: Services,
  req: Request,
  res: Response,
): string | undefined | Promise<string | undefined> {
  const sim = simLocals(res);
  if (sim.auth?.app) return sim.auth.app.client_id;
  if (!sim.op?.storage) return undefined;
  // Answered without a promise when known: the journal asks on every request's close.
  if (sim.storageOwner !== undefined) return sim.storageOwner ?? undefined;
  return storageOwner(services, sim.op.id, req).then((owner) => {
    sim.storageOwner = owner ?? null;
    return owner;
  });
}

function storageOwner(services: Services, op: string, req: Request): Promise<string | undefined> {
  if (op === 'uploadPart') return services.storage.ownerOfUpload(first(req.query.uploadId));
  // From the URL, not req.params: the journal asks after the router has let go of them.
  const fileId = /\/files\/([^/?]+)/.exec(req.originalUrl)?.[1];
  return services.storage.ownerOfFile(fileId === undefined ? undefined : decodeURIComponent(fileId));
}
