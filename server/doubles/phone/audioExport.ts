import { BridgeError, MESSAGES } from './errors.js';
import type { Emit } from './handshakeShow.js';
import { isProtocol, type PhoneClient } from './phoneClient.js';
import type { Wait } from './timing.js';
import type { AudioFormat, Bridge, ExportOptions, ExportResult, Platform } from './types.js';

/**
 * exportAudio as the bridges do it: the recorder's audio (the device protocol's export, in the
 * format asked where the simulator can produce it honestly), progress events on the way, a
 * file in the app's PlaudExports folder. Files live in memory, readable by outputPath.
 */

const FORMATS: readonly AudioFormat[] = ['pcm', 'mp3', 'wav', 'opus'];
const EXPORT_DIR: Record<Platform, string> = {
  ios: '/var/mobile/Containers/Data/Application/PARTNER-SIM/Documents/PlaudExports',
  android: '/data/user/0/ai.plaud.partnersim/files/PlaudExports',
};

export class ExportStore {
  private readonly files = new Map<string, Uint8Array>();
  save(path: string, bytes: Uint8Array): void {
    this.files.set(path, bytes);
  }
  /** By outputPath, a `file://` URL or a `…/_capacitor_file_/…` URL (as Capacitor's readFile). */
  read(path: string): Uint8Array | undefined {
    return this.files.get(exportFilePath(path));
  }
}

/**
 * The file a path or URL names, as the Capacitor plugins resolve it for readFile: the part
 * after `_capacitor_file_` percent-decoded (left as is when it does not decode), a `file://`
 * URL's path, and a relative path taken from the root (an app's working directory).
 */
export function exportFilePath(path: string): string {
  const marker = path.indexOf('_capacitor_file_');
  let raw = path;
  if (marker >= 0) {
    raw = path.slice(marker + '_capacitor_file_'.length);
    try {
      raw = decodeURIComponent(raw);
    } catch {
      // As iOS's `removingPercentEncoding ?? raw`.
    }
  }
  const file = raw.replace(/^file:\/\//, '');
  return file.startsWith('/') ? file : `/${file}`;
}

export interface ExportContext {
  bridge: Bridge;
  platform: Platform;
  wait: Wait;
  emit: Emit;
  store: ExportStore;
}

export async function exportAudio(
  phone: PhoneClient | undefined,
  x: ExportOptions,
  ctx: ExportContext,
): Promise<ExportResult> {
  const sessionId = x?.sessionId;
  // React Native refuses a missing or negative id (its Record defaults it to -1); the
  // Capacitor plugins refuse only one that is missing or not an integer and hand a negative
  // one to the SDK, which has no such recording.
  if (
    typeof sessionId !== 'number' ||
    !Number.isInteger(sessionId) ||
    (sessionId < 0 && ctx.bridge !== 'capacitor')
  ) {
    throw new BridgeError('ERR_PLAUD_ARGS', MESSAGES.sessionRequired);
  }
  // An unknown format falls back to mp3, as both native modules' switch does.
  const format = FORMATS.includes(x.format as AudioFormat) ? (x.format as AudioFormat) : 'mp3';
  if (!phone) throw new BridgeError('ERR_PLAUD_EXPORT', MESSAGES.exportNotConnected);
  // No recording has a negative id (the device protocol refuses one): answered here as the
  // SDK would, by whether a device is connected.
  if (sessionId < 0)
    throw new BridgeError(
      'ERR_PLAUD_EXPORT',
      (await phone.state()).connected ? MESSAGES.exportNoSession : MESSAGES.exportNotConnected,
    );
  let bytes: Uint8Array;
  try {
    bytes = await phone.exportAudio(sessionId, format, x.channels ?? 1);
  } catch (e) {
    if (isProtocol(e, 409)) throw new BridgeError('ERR_PLAUD_EXPORT', MESSAGES.exportNotConnected);
    if (isProtocol(e, 404)) throw new BridgeError('ERR_PLAUD_EXPORT', MESSAGES.exportNoSession);
    if (isProtocol(e, 406, 422))
      throw new BridgeError('ERR_PLAUD_EXPORT', `cannot export as ${format}: ${e.reason}`);
    throw e;
  }
  for (const progress of [0, 25, 50, 75, 100]) {
    await ctx.wait('exportStep');
    ctx.emit('exportProgress', { sessionId, progress, message: progress === 100 ? 'done' : 'exporting' });
  }
  const outputPath = `${EXPORT_DIR[ctx.platform]}/${sessionId}.${format}`;
  ctx.store.save(outputPath, bytes);
  return { sessionId, outputPath };
}
