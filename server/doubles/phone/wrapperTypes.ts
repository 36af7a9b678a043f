import type { AudioFormat, BridgeMethods, DeviceFile, EventPayloads, ScanDevice } from './types.js';

/**
 * The official wrappers' type names, so an app that imports them from `plaud-sdk` (React
 * Native) or its `lib/plaud-sdk.ts` (Capacitor) still typechecks when the module is aliased
 * to a double. Each is one of the double's own types under the wrapper's name.
 */
export type PlaudScanDevice = ScanDevice;
export type PlaudScanResult = EventPayloads['scanResult'];
export type PlaudConnectState = EventPayloads['connectState'];
export type PlaudConnectFail = EventPayloads['connectFail'];
export type PlaudConnectStage = EventPayloads['connectStage'];
export type PlaudPenState = EventPayloads['penState'];
export type PlaudFile = DeviceFile;
export type PlaudFileList = EventPayloads['fileList'];
export type PlaudExportProgress = EventPayloads['exportProgress'];
export type PlaudRecordStart = EventPayloads['recordStart'];
export type PlaudRecordStop = EventPayloads['recordStop'];
export type PlaudRecordResume = EventPayloads['recordResume'];
export type PlaudAudioFormat = AudioFormat;
/** Event name → listener, as the RN module's `PlaudSdkEvents`. */
export type PlaudSdkEvents = { [K in keyof EventPayloads]: (data: EventPayloads[K]) => void };
/** The method surface both wrappers share (RN `PlaudSdkModule`, Capacitor `PlaudSdkPlugin`). */
export type PlaudSdkMethods = Omit<BridgeMethods, 'recoveryConnectBleDevice'>;
