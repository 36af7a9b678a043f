import type { components } from '../spec/admin-types.js';
import type { DeviceEvents } from './deviceEvents.js';
import type { PhoneService } from './phones.js';
import type { RecorderView } from './recorderModel.js';
import type { RecorderRegistry } from './recorders.js';

type Admin = components['schemas'];

interface Deps {
  recorders: RecorderRegistry;
  phones: PhoneService;
  events: DeviceEvents;
}

/**
 * The control API's changes of a recorder that are events on the device: a record press
 * reaches the connected phone (recordStart/recordStop) and a stop is `device.recording_completed`;
 * a battery set under the docs' threshold is `device.battery_low`.
 */
export async function pressRecord(d: Deps, sn: string, body: Admin['RecordPress']): Promise<RecorderView> {
  const { view, event, phone, stopped } = await d.recorders.press(sn, body);
  if (event) await d.phones.deliver(phone, view.sn, event.name, event.data);
  if (stopped) await d.events.recordingCompleted(view, stopped);
  return view;
}

export async function putRecorder(d: Deps, sn: string, state: Admin['RecorderState']): Promise<RecorderView> {
  const { view, before } = await d.recorders.put(sn, state);
  await d.events.batteryChanged(before, view);
  return view;
}
