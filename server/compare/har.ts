import { readFile } from 'node:fs/promises';
import { KNOWN_REGIONS } from '../core/regions.js';
import type { Region } from '../domain/apps.js';

/** The parts of a HAR 1.2 entry `compare` reads (a recording of `serve --record`, or any HAR). */
export interface HarEntry {
  startedDateTime: string;
  time: number;
  request: {
    method: string;
    url: string;
    headers: { name: string; value: string }[];
    postData?: { mimeType: string; text?: string; _size?: number; _md5?: string };
    bodySize?: number;
  };
  response: {
    status: number;
    headers: { name: string; value: string }[];
    content: { mimeType?: string; text?: string; size: number; _md5?: string };
  };
  _operation?: string | null;
  _region?: string;
  /** Where the upstream's answer broke openapi.yaml, found as it was recorded. */
  _violations?: string[];
}

export interface Recording {
  entries: HarEntry[];
  app?: string;
  region: Region;
}

/** A recording that cannot be read: said plainly, never a stack trace. */
export class RecordingError extends Error {
  override readonly name = 'RecordingError';
}

/** Read a HAR file; only entries with a request and an answer are kept, in recorded order. */
export async function readRecording(path: string): Promise<Recording> {
  let raw: string;
  try {
    raw = await readFile(path, 'utf8');
  } catch (e) {
    throw new RecordingError(
      `cannot read ${path}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`,
    );
  }
  let har: { log?: { entries?: unknown; _app?: unknown; _region?: unknown } };
  try {
    har = JSON.parse(raw) as typeof har;
  } catch (e) {
    throw new RecordingError(`${path} is not JSON: ${(e as Error).message}`);
  }
  if (!har?.log || !Array.isArray(har.log.entries))
    throw new RecordingError(`${path} is not a HAR file (no log.entries)`);
  const entries = (har.log.entries as HarEntry[]).filter(
    (e) =>
      e?.request?.url && e.request.method && typeof e.response?.status === 'number' && e.response.status > 0,
  );
  entries.sort((a, b) => Date.parse(a.startedDateTime) - Date.parse(b.startedDateTime));
  const named = har.log._region ?? entries[0]?._region;
  const region = KNOWN_REGIONS.find((r) => r === named) ?? 'us';
  return { entries, region, ...(typeof har.log._app === 'string' ? { app: har.log._app } : {}) };
}

/** A header of a HAR message, lower-case name, or undefined. */
export function harHeader(headers: { name: string; value: string }[], name: string): string | undefined {
  return headers.find((h) => h.name.toLowerCase() === name)?.value;
}
