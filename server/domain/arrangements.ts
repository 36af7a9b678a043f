import type { Clock } from '../core/clock.js';
import { SimError } from '../core/errors.js';
import type { Random } from '../core/random.js';
import type { components } from '../spec/admin-types.js';
import { checkType, normalizeSerial } from './deviceModel.js';
import type { DeviceRegistry } from './devices.js';
import type { PhoneService } from './phones.js';
import { freeSessionId, nextRadio, type RecorderRecord } from './recorderModel.js';
import type { RecorderRegistry } from './recorders.js';

type Admin = components['schemas'];
type Case = Admin['ArrangeCase'];
type Expect = Admin['Arrangement']['expect'];

/** What the native template's recovery reports, by how it ends. */
const MESSAGES: Record<Expect['recovery'], string> = {
  unlocked: 'unlocked: reconnected as the current user and bound in the cloud',
  refused: 'bound to another account; that owner must unbind it first',
  no_history: 'no bind history',
  no_match: 'none of the previous accounts matched the device lock',
  not_needed: 'connected without recovery',
  not_found: 'device not found by the scan',
  recording_now: 'the device is recording; stop it, then connect',
};

/**
 * What the native recovery can observe through each bridge: only Capacitor Android relays
 * `RECORDING_NOW` (connectFail); elsewhere a busy recorder's refusal looks like a lock, and
 * the algorithm goes on to the cloud state (device-sdk-notes, fourth pass).
 */
function byBridge(
  recovery: Expect['recovery'],
  cloud: { is_bind: boolean | null; bind_history?: string[] } | 'unsigned',
) {
  const end = (r: Expect['recovery']) => ({ recovery: r, message: MESSAGES[r] });
  if (recovery !== 'recording_now')
    return { ios: end(recovery), android: end(recovery), capacitor_android: end(recovery) };
  const history = cloud === 'unsigned' ? [] : (cloud.bind_history ?? []);
  const lockLike = end(
    cloud !== 'unsigned' && cloud.is_bind === true ? 'refused' : history.length ? 'no_match' : 'no_history',
  );
  return { ios: lockLike, android: lockLike, capacitor_android: end(recovery) };
}

/** The app that owns devices bound "to another account" by an arrangement. */
const OTHER_APP = 'other-app';

/**
 * One device-lock case in one call: the cloud half (DeviceRegistry) and the device half
 * (RecorderRegistry) set together, any phone connected to the recorder disconnected.
 */
export async function arrange(
  deps: {
    devices: DeviceRegistry;
    recorders: RecorderRegistry;
    phones: PhoneService;
    random: Random;
    clock: Clock;
  },
  rawSn: string,
  req: Admin['ArrangeRequest'],
): Promise<Admin['Arrangement']> {
  const sn = normalizeSerial(rawSn);
  const type = checkType(sn, undefined, ['path', 'type']);
  const before = await deps.recorders.record(sn);
  const radio = nextRadio(deps.random, sn, before);
  // Per serial and radio life: a seeded instance repeats a run, yet recorders' ids differ.
  const ids = deps.random.fork(`${sn}/${radio.radio_gen}`);
  const id = () => `client_user_${ids.uuid()}`;
  const user = req.user?.sub;
  if (req.cloud !== undefined && req.case !== 'classic_lock')
    throw SimError.invalidField(['body', 'cloud'], 'cloud is only allowed with case classic_lock');
  if (req.case === 'paired_to_user' && !req.user)
    throw SimError.invalidField(['body', 'user'], 'paired_to_user needs the user the device is paired to');
  const locked = id();
  const [d1, d2, d3] = [id(), id(), id()];
  let cloud: { is_bind: boolean | null; bind_history?: string[]; owner?: Admin['DeviceOwner'] } | 'unsigned';
  let paired: string | null = locked;
  let recovery: Expect['recovery'];
  const local: Partial<RecorderRecord> = {};
  switch (req.case as Case) {
    case 'classic_lock':
      cloud = req.cloud === null ? { is_bind: null } : { is_bind: false, bind_history: [d1, locked, d2] };
      recovery = req.cloud === null ? 'no_history' : 'unlocked';
      break;
    case 'bound_elsewhere':
      cloud = { is_bind: true, bind_history: [locked, d1], owner: { sub: locked, client_id: OTHER_APP } };
      recovery = 'refused';
      break;
    case 'not_in_history':
      cloud = { is_bind: false, bind_history: [d1, d2, d3] };
      recovery = 'no_match';
      break;
    case 'behind_duplicates':
      cloud = { is_bind: false, bind_history: [...Array.from({ length: 55 }, () => d1), locked] };
      recovery = 'unlocked';
      break;
    case 'sixth_id':
      cloud = { is_bind: false, bind_history: [d1, d2, d3, id(), id(), locked] };
      recovery = 'no_match';
      break;
    case 'never_paired':
      cloud = 'unsigned';
      paired = null;
      recovery = 'not_needed';
      break;
    case 'out_of_range':
      cloud = 'unsigned';
      paired = null;
      local.in_range = false;
      recovery = 'not_found';
      break;
    case 'battery_low':
      cloud = { is_bind: null };
      paired = null;
      local.battery = 4;
      recovery = 'not_needed';
      break;
    case 'recording':
      cloud = { is_bind: null };
      paired = null;
      recovery = 'recording_now';
      break;
    case 'paired_to_user':
      cloud = { is_bind: true, bind_history: [user!], owner: req.user! };
      paired = user!;
      recovery = 'not_needed';
      break;
  }
  await deps.phones.detach(before);
  const rec: RecorderRecord = {
    sn,
    type,
    in_range: true,
    ...radio,
    paired_to: paired,
    battery: 85,
    firmware: 'V0095@0205',
    rssi: -55,
    clear_deletes_recordings: false,
    connected_phone: null,
    recording: null,
    recordings: [],
    ...local,
  };
  if (req.case === 'recording') {
    const session_id = freeSessionId(rec, deps.clock.now() / 1000);
    rec.recording = { session_id, start_time: new Date(session_id * 1000).toISOString(), scene: 0 };
  }
  const recorder = await deps.recorders.replace(rec);
  let device: Admin['Device'] | null = null;
  if (cloud === 'unsigned') await deps.devices.remove(sn).catch(() => undefined);
  else device = await deps.devices.put(sn, cloud);
  return {
    case: req.case,
    device,
    recorder,
    locked_to: paired,
    // A prediction, and worded as one: nothing has been tried yet.
    expect: {
      recovery,
      message: `recovery would end: ${MESSAGES[recovery]}`,
      by_bridge: byBridge(recovery, cloud),
    },
  };
}
