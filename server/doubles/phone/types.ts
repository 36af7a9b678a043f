import type { components } from '../../spec/device-types.js';

/**
 * The bridges' shared surface (device-sdk-notes, "The wrappers and their one shared surface"):
 * the payload of every event and the options of every method, as the official React Native
 * and Capacitor wrappers type them. Written from the notes and the wrappers' published types;
 * nothing here is the wrappers' code.
 */

type DeviceSchemas = components['schemas'];
export type Platform = DeviceSchemas['Platform'];
export type AudioFormat = DeviceSchemas['AudioFormat'];
/** Which official wrapper a double plays: they answer a phone without a usable radio differently. */
export type Bridge = 'react-native' | 'capacitor';

/** One of `scanResult.devices` (the device protocol's ScannedDevice; `uuid` is Android's MAC or an iOS UUID). */
export type ScanDevice = DeviceSchemas['ScannedDevice'] & {
  /** Capacitor on Android only: the MAC again. */
  macAddress?: string;
};

export interface ConnectState {
  connected: boolean;
  /** true for 2/-1/-2 (a failed connect or handshake), false for a plain disconnect. */
  failed: boolean;
  state: number;
}

export interface PenState {
  state: number;
  privacy: number;
  keyState: number;
  uDisk: number;
  /** iOS only (these three): Android's penState carries the four fields above. */
  findMyToken?: number;
  hasSndpKey?: number;
  deviceAccessToken?: number;
}

/** One of `fileList.files` (the device protocol's FileInfo; `duration` in seconds). */
export type DeviceFile = DeviceSchemas['FileInfo'];

export interface RecordStart {
  sessionId: number;
  start: number;
  status: number;
  scene: number;
  startTime: number;
  reason: number;
}
export interface RecordStop {
  sessionId: number;
  reason: number;
  fileExist: boolean;
  fileSize: number;
}
export type RecordResume = Omit<RecordStart, 'reason'>;

/** Capacitor on Android only: why a connect failed, one layer below `connectState`. */
export interface ConnectFail {
  /** Absent on the plugin's own `{reason: 'permissionDenied'}`. */
  mac?: string | null;
  reason: string | null;
  code?: number;
  message?: string | null;
}

/** Event name → payload. The first twelve are every bridge's; the rest Capacitor Android's. */
export interface EventPayloads {
  scanResult: { devices: ScanDevice[] };
  scanTimeout: { reason?: string };
  connectState: ConnectState;
  penState: PenState;
  bind: { sn: string | null; status: number; protVersion: number };
  fileList: { files: DeviceFile[] };
  exportProgress: { sessionId: number; progress: number; message: string };
  recordStart: RecordStart;
  recordStop: RecordStop;
  recordPause: RecordStop;
  recordResume: RecordResume;
  depair: { status: number };
  connectFail: ConnectFail;
  connectStage: { mac: string | null; stage: string; message: string | null };
  handshakeWaitSure: { mac: string | null; timeoutMs: number };
  btStatus: { mac: string | null; status: string | null };
  scanFail: { reason: string | null };
}
export type EventName = keyof EventPayloads;

/** The twelve events every official bridge declares. */
export const SHARED_EVENTS: readonly EventName[] = [
  'scanResult',
  'scanTimeout',
  'connectState',
  'penState',
  'bind',
  'fileList',
  'exportProgress',
  'recordStart',
  'recordStop',
  'recordPause',
  'recordResume',
  'depair',
];

export interface InitOptions {
  userAccessToken: string;
  /** Host only, no scheme: `platform-us.plaud.ai`, or the simulator's `127.0.0.1:4010`. */
  customDomain: string;
  userId?: string;
}
export interface ConnectOptions {
  uuid?: string;
  serialNumber?: string;
  deviceToken?: string;
}
export interface ExportOptions {
  sessionId: number;
  format?: AudioFormat;
  channels?: number;
}
export interface ExportResult {
  sessionId: number;
  outputPath: string;
}

/** The nine methods every bridge shares, plus the native-only recovery connect. */
export interface BridgeMethods {
  initSDK(options: InitOptions): Promise<void>;
  startScan(): Promise<void>;
  stopScan(): Promise<void>;
  connectBleDevice(options: ConnectOptions): Promise<void>;
  disconnect(): Promise<void>;
  depair(options?: { clear?: boolean }): Promise<void>;
  isConnected(): Promise<{ connected: boolean }>;
  getFileList(options?: { startSessionId?: number }): Promise<void>;
  exportAudio(options: ExportOptions): Promise<ExportResult>;
  /**
   * NOT in the official JS wrappers yet (native SDK 1.0.13+ only): connect with `historicalId`
   * (a `client_user_…` id from `bind_history`) pinned as the handshake token and a forced
   * clear. The outcome arrives as events, exactly like `connectBleDevice`.
   */
  recoveryConnectBleDevice(device: ConnectOptions | ScanDevice, historicalId: string): Promise<void>;
}
