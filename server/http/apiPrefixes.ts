import type { Region } from '../domain/apps.js';

/**
 * Where the partner API is served, and which region each prefix emulates. Its own module so
 * the redirect loader (server/redirect/) can map live hosts without loading the server.
 */
export const API_PREFIXES: ReadonlyArray<readonly [string, Region]> = [
  ['/developer/api', 'us'],
  ['/us/developer/api', 'us'],
  ['/jp/developer/api', 'jp'],
];
