import { SimError } from '../core/errors.js';
import type { components as AdminComponents } from '../spec/admin-types.js';
import type { PhoneRecord } from './phoneModel.js';

type Admin = AdminComponents['schemas'];
export type PhoneSummary = Admin['PhoneSummary'];
export type PhoneArrangement = Admin['PhoneArrangement'];

/**
 * A phone's own radio as its user set it: Bluetooth on or off, the app's Bluetooth
 * permissions granted or denied. Records written before these existed are on and granted.
 */
const bluetoothOf = (p: Pick<PhoneRecord, 'bluetooth'>) => p.bluetooth ?? 'on';
const permissionsOf = (p: Pick<PhoneRecord, 'permissions'>) => p.permissions ?? 'granted';

/** A scan or connect needs the radio: permissions first (the bridges ask for them first), then power. */
export function requireRadio(p: PhoneRecord): void {
  if (permissionsOf(p) === 'denied')
    throw SimError.conflict(
      'PERMISSION_DENIED',
      `The app's Bluetooth permissions are denied on phone ${p.phone_id}.`,
    );
  if (bluetoothOf(p) === 'off')
    throw SimError.conflict('BLUETOOTH_OFF', `Bluetooth is off on phone ${p.phone_id}.`);
}

export function phoneSummary(p: PhoneRecord): PhoneSummary {
  return {
    phone_id: p.phone_id,
    client_id: p.client_id,
    sub: p.sub,
    platform: p.platform,
    bluetooth: bluetoothOf(p),
    permissions: permissionsOf(p),
    connected_to: p.connection?.sn ?? null,
  };
}

/** The phone with its user's settings changed. */
export const arranged = (p: PhoneRecord, a: PhoneArrangement): PhoneRecord => ({
  ...p,
  ...(a.bluetooth ? { bluetooth: a.bluetooth } : {}),
  ...(a.permissions ? { permissions: a.permissions } : {}),
});
