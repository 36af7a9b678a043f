import type { components } from '../spec/admin-types.js';

/** A region of the live service (its own type here: the domain imports these prefixes). */
type Region = components['schemas']['Region'];

/**
 * Where each surface is served, and which region each partner-API prefix emulates. Its own
 * module so the redirect loader, the CLI and the embedding API can name them without loading
 * the server.
 */
export const API_PREFIXES: ReadonlyArray<readonly [string, Region]> = [
  ['/developer/api', 'us'],
  ['/us/developer/api', 'us'],
  ['/jp/developer/api', 'jp'],
  ['/eu/developer/api', 'eu'],
  ['/sg/developer/api', 'sg'],
];

/** The partner API of each region (the first prefix of each). */
export const US_API = '/developer/api';
export const JP_API = '/jp/developer/api';
export const EU_API = '/eu/developer/api';
export const SG_API = '/sg/developer/api';
export const STORAGE_PREFIX = '/storage';
export const ADMIN_PREFIX = '/__admin';
/** The device protocol (server/device.openapi.yaml), per region of the SDK's base URL. */
export const DEVICE_PREFIX = '/__device';
export const JP_DEVICE_PREFIX = '/jp/__device';
export const DEVICE_PREFIXES: ReadonlyArray<readonly [string, Region]> = [
  [DEVICE_PREFIX, 'us'],
  [JP_DEVICE_PREFIX, 'jp'],
  ['/eu/__device', 'eu'],
  ['/sg/__device', 'sg'],
];

/** The prefixes of the regions `--regions` serves. */
export const enabledPrefixes = (
  prefixes: ReadonlyArray<readonly [string, Region]>,
  regions: readonly Region[],
): ReadonlyArray<readonly [string, Region]> => prefixes.filter(([, r]) => regions.includes(r));
