import type { components } from '../spec/admin-types.js';

/** A region of the live service (admin.openapi.yaml `Region`). */
type Region = components['schemas']['Region'];

/**
 * Which regions the simulator serves (`--regions`, the redirect loader's `PARTNER_SIM_REGIONS`).
 * Live serves US and JP; every current overview page lists EU (`platform-eu.plaud.ai`) and
 * Singapore (`platform-sg.plaud.ai`) as "Coming soon" and their hosts do not resolve (live
 * notes, "Regions"). So the default is the two live serves, and the other two are opt-in.
 */
export const KNOWN_REGIONS: readonly Region[] = ['us', 'jp', 'eu', 'sg'];
export const DEFAULT_REGIONS: readonly Region[] = ['us', 'jp'];

/** A region name, or undefined. */
export const asRegion = (r: string): Region | undefined => KNOWN_REGIONS.find((k) => k === r);

/** A comma list of regions, us and jp always among them (live serves both). */
export function parseRegions(raw: string): Region[] {
  const list = raw
    .split(',')
    .map((r) => r.trim().toLowerCase())
    .filter(Boolean);
  const bad = list.find((r) => asRegion(r) === undefined);
  if (bad !== undefined)
    throw new Error(`${JSON.stringify(bad)} is not a region (${KNOWN_REGIONS.join(', ')})`);
  const missing = DEFAULT_REGIONS.filter((r) => !list.includes(r));
  if (missing.length)
    throw new Error(
      `live serves ${missing.join(' and ')}: the list must name ${missing.length > 1 ? 'both' : 'it'} (e.g. us,jp,eu,sg)`,
    );
  return KNOWN_REGIONS.filter((r) => list.includes(r));
}

/** The `--regions` value that serves `region` too. */
export const regionsWith = (enabled: readonly Region[], region: Region): string =>
  KNOWN_REGIONS.filter((r) => r === region || enabled.includes(r)).join(',');

/** Why `region` is not served, and the flag that serves it. */
export const regionNotEnabled = (enabled: readonly Region[], region: Region): string =>
  `Region ${region} is not enabled on this simulator: live lists it as Coming soon (its host ` +
  `does not resolve). Start the simulator with --regions ${regionsWith(enabled, region)} to serve it`;
