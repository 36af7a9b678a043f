import type { Request, Response } from 'express';
import { claimedClientId } from '../http/claimedClientId.js';
import { simLocals } from '../http/types.js';
import type { Services } from '../services.js';
import { unverifiedRing } from '../store/store.js';

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

interface Owner {
  clientId?: string | undefined;
  /** The journal ring: an existing app's id, or undefined for the no-app ring. */
  ring?: string | undefined;
  unverified?: boolean;
}

/**
 * Which app a request belongs to. Verified: its credentials passed, or (storage) the signed
 * URL of one of the app's uploads was accepted. Otherwise the id it claimed, marked
 * `unverified`: anyone can claim an id, so such requests never evict the app's own entries.
 * They go to the claimed app's unverified ring, or the no-app ring when no such app exists
 * (so claims cannot create rings); listing an app's journal still shows them.
 */
export function journalOwner(
  services: Services,
  found: string | undefined,
  req: Request,
  res: Response,
  status: number,
): Owner {
  const refusedUrl = simLocals(res).op?.storage && status === 403;
  if (found !== undefined && !refusedUrl) return { clientId: found, ring: found };
  const claimed = found ?? claimedClientId(req);
  if (claimed === undefined || claimed === '') return {};
  // Anyone can claim any id, up to a header's size: kept no longer than an app's id can be.
  const ring = services.apps.get(claimed) ? unverifiedRing(claimed) : undefined;
  return { clientId: claimed.slice(0, 256), ring, unverified: true };
}
