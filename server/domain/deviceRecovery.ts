import { planRecovery, type RecoveryPlan } from '../client/recovery.js';
import type { DeviceRegistry } from './devices.js';

/**
 * What a partner's device-lock recovery would try for one stored device. The rules live once,
 * in the reference helper partners copy (server/client/recovery.ts); the dashboard shows its
 * verdict through the control API instead of re-implementing it in the browser.
 */
export async function deviceRecovery(devices: DeviceRegistry, sn: string): Promise<RecoveryPlan> {
  const { is_bind, bind_history } = await devices.get(sn);
  return planRecovery({ is_bind, bind_history });
}
