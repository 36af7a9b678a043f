import type { components } from '../spec/device-types.js';
import type { DeviceEvents } from './deviceEvents.js';
import type { PhoneService } from './phones.js';
import { type AudioExport, type ExportFormat, exportAudio, opusDurationMs } from './recorderAudio.js';
import { type RecorderRegistry, recordingNotFound } from './recorders.js';

type Dev = components['schemas'];

/**
 * The recordings calls of the device protocol (getFileList, exportAudio, native deleteFile):
 * each on the recorder the phone is connected to, 409 NOT_CONNECTED otherwise.
 */
export class PhoneRecordings {
  constructor(
    private readonly phones: PhoneService,
    private readonly recorders: RecorderRegistry,
    private readonly events: DeviceEvents,
  ) {}

  async list(id: string, after = 0): Promise<Dev['FileList']> {
    const { phone, rec } = await this.phones.connectedRecorder(id);
    // Both Android bridges compute whole seconds from the size (opus ms / 1000); iOS's SDK
    // gives the recorded length.
    const android = phone.platform === 'android';
    const files = rec.recordings
      .filter((r) => r.session_id > after)
      .map((r) => ({
        sn: rec.sn,
        sessionId: r.session_id,
        size: r.size,
        scenes: r.scene,
        channels: r.channels,
        isOgg: false,
        isMusic: false,
        duration: android ? Math.floor(opusDurationMs(r.size, r.channels) / 1000) : r.duration_s,
      }));
    return { files };
  }

  async export(
    id: string,
    sessionId: number,
    format: ExportFormat,
    channels: number,
  ): Promise<AudioExport & { duration: number }> {
    const { phone, rec } = await this.phones.connectedRecorder(id);
    const r = rec.recordings.find((x) => x.session_id === sessionId);
    if (!r) throw recordingNotFound(rec.sn, sessionId);
    const out = exportAudio(r, format, channels, await this.recorders.bytesOf(rec.sn, r));
    // The model's sync: a recording's audio handed to the phone (a listing is not one).
    await this.events.synced(phone, rec.sn, r);
    return { ...out, duration: r.duration_s };
  }

  async remove(id: string, sessionId: number): Promise<void> {
    const { rec } = await this.phones.connectedRecorder(id);
    await this.recorders.deleteRecording(rec.sn, sessionId);
  }
}
