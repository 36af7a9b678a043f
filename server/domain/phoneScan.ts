import type { components } from '../spec/device-types.js';
import { dropPending, type PhoneRecord, SCAN_MAX, schedule, uuidFor } from './phoneModel.js';
import { nameOf, type RecorderRecord } from './recorderModel.js';

type Dev = components['schemas'];
type ScannedDevice = Dev['ScannedDevice'];

/** What a scan finds: the strongest recorders in range, as the SDK lists them to this phone. */
export function scannedDevices(
  p: PhoneRecord,
  inRange: RecorderRecord[],
): { found: RecorderRecord[]; devices: ScannedDevice[] } {
  const found = inRange.sort((a, b) => b.rssi - a.rssi || (a.sn < b.sn ? -1 : 1)).slice(0, SCAN_MAX);
  const devices = found.map((r) => ({
    name: nameOf(r.type),
    uuid: uuidFor(p, r.mac),
    serialNumber: r.sn,
    rssi: r.rssi,
    supportWiFi: false,
  }));
  return { found, devices };
}

/** The phone after a scan started at `now`: what it saw, one scanResult per find, then scanTimeout. */
export function scheduleScan(
  cur: PhoneRecord,
  found: RecorderRecord[],
  devices: ScannedDevice[],
  now: number,
  endsAt: number,
): PhoneRecord {
  const p = dropPending(cur, 'scan', now);
  const seen = { ...p.seen };
  for (const r of found) seen[r.sn] = r.mac;
  const items = devices.map((_d, i) => ({
    at: Math.min(endsAt, now + (p.timing === 'instant' ? 0 : 200 + 150 * i)),
    name: 'scanResult' as const,
    data: { devices: devices.slice(0, i + 1) },
    tag: 'scan' as const,
  }));
  const all: Parameters<typeof schedule>[1] = [
    ...items,
    { at: endsAt, name: 'scanTimeout', data: {}, tag: 'scan' },
  ];
  return schedule({ ...p, seen, scan_ends_at: endsAt }, all);
}
