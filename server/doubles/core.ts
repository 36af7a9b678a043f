import { BridgeError, MESSAGES } from './errors.js';
import { type Pump, startPump } from './eventPump.js';
import { type Emit, showHandshake } from './handshakeShow.js';
import type { DeviceLink, HandshakeOutcome, RadioDevice } from './link.js';
import { handshakeTokenOf, sdkApiBase } from './sdkCloud.js';
import { HARDWARE_MS, type Timing, type Waits, waitsFor } from './timing.js';
import type {
  AudioFormat,
  ConnectOptions,
  ExportOptions,
  ExportResult,
  InitOptions,
  Platform,
  ScanDevice,
} from './types.js';

/**
 * One virtual phone's SDK: the state both doubles share (scan cache, connection, exports) and
 * the nine methods plus the recovery connect, in the native modules' order of checks. The
 * React Native and Capacitor doubles are thin adapters over it: listeners and error shapes.
 */
export interface CoreOptions {
  platform: Platform;
  link: DeviceLink;
  /** The simulator the live hosts of `customDomain` stand for. */
  simulatorUrl: string;
  timing?: Timing;
  /** Android: where the SDK's own cloud calls go (see sdkApiBase). */
  sdkBaseUrl: 'jp' | 'customDomain';
  /** Real-time interval of device-event polling while connected. */
  pollMs?: number;
  /** A failure talking to the simulator (default: console.error). */
  onError?: (e: unknown) => void;
}

interface Session {
  userToken: string;
  keys: Promise<boolean>;
  sdkApi: string;
  signed: Map<string, Promise<boolean>>;
}

const FORMATS: readonly AudioFormat[] = ['pcm', 'mp3', 'wav', 'opus'];
const EXPORT_DIR: Record<Platform, string> = {
  ios: '/var/mobile/Containers/Data/Application/PARTNER-SIM/Documents/PlaudExports',
  android: '/data/user/0/ai.plaud.partnersim/files/PlaudExports',
};

/** iOS shows a CoreBluetooth-style UUID; ours is derived from the radio's MAC, so stable. */
export const iosUuidOf = (mac: string) =>
  `00000000-0000-4000-8000-${mac.replace(/[^0-9a-f]/gi, '').toUpperCase()}`;

export class BridgeCore {
  private readonly waits: Waits;
  private session: Session | undefined;
  /** Devices seen by any scan, by the uuid the bridge showed (the native scan cache). */
  private readonly scanned = new Map<string, RadioDevice>();
  private scanRun = 0;
  private connectRun = 0;
  private linkUp = false;
  private bound: RadioDevice | undefined;
  private pump: Pump | undefined;
  private readonly exports = new Map<string, Uint8Array>();

  constructor(
    private readonly options: CoreOptions,
    private readonly emit: Emit,
  ) {
    this.waits = waitsFor(options.timing);
  }

  get platform(): Platform {
    return this.options.platform;
  }

  private shownUuid(d: RadioDevice): string {
    return this.options.platform === 'ios' ? iosUuidOf(d.uuid) : d.uuid;
  }

  private fail(e: unknown): void {
    (this.options.onError ?? ((x) => console.error('partner-sim device double:', x)))(e);
  }

  async initSDK(o: InitOptions): Promise<void> {
    if (!o?.userAccessToken) throw new BridgeError('ERR_PLAUD_ARGS', MESSAGES.tokenRequired);
    if (!o.customDomain) throw new BridgeError('ERR_PLAUD_ARGS', MESSAGES.domainRequired);
    const { platform, simulatorUrl, sdkBaseUrl, link } = this.options;
    const sdkApi = sdkApiBase(platform, o.customDomain, simulatorUrl, sdkBaseUrl);
    // The key pair is fetched in the background; a connect waits for it (as the SDK does).
    const keys = link.genKey(sdkApi, o.userAccessToken).then(
      (r) => r.ok,
      (e) => {
        this.fail(e);
        return false;
      },
    );
    this.session = { userToken: o.userAccessToken, keys, sdkApi, signed: new Map() };
  }

  async startScan(): Promise<void> {
    const run = ++this.scanRun;
    void this.scanLoop(run).catch((e) => this.fail(e));
  }

  async stopScan(): Promise<void> {
    this.scanRun++;
  }

  private async scanLoop(run: number): Promise<void> {
    const session = this.session;
    if (!session) {
      // No initSDK: Bluetooth never reports powered on, and both bridges give up with this.
      await this.waits.wait('poweredOnWait');
      if (run === this.scanRun) this.emit('scanTimeout', { reason: 'bluetoothNotPoweredOn' });
      return;
    }
    const seen = new Map<string, RadioDevice>();
    // The window is counted in the double's own waits, so it follows a simulated clock too.
    let elapsed = HARDWARE_MS.scanFirst;
    await this.waits.wait('scanFirst');
    for (;;) {
      if (run !== this.scanRun) return;
      const found = await this.options.link.scan(session.userToken);
      if (run !== this.scanRun) return;
      for (const d of found) {
        seen.set(this.shownUuid(d), d);
        this.scanned.set(this.shownUuid(d), d);
      }
      this.emit('scanResult', { devices: [...seen.values()].map((d) => this.scanDevice(d)) });
      if (this.waits.instant || elapsed >= HARDWARE_MS.scanWindow) break;
      await this.waits.wait('scanRepeat');
      elapsed += HARDWARE_MS.scanRepeat;
    }
    if (run === this.scanRun) {
      this.scanRun++;
      this.emit('scanTimeout', {});
    }
  }

  private scanDevice(d: RadioDevice): ScanDevice {
    const uuid = this.shownUuid(d);
    // Android's scan record has no Wi-Fi flag: the bridges report false there.
    const base = { name: d.name, uuid, serialNumber: d.sn, rssi: d.rssi };
    return this.options.platform === 'ios'
      ? { ...base, supportWiFi: d.supportWiFi }
      : { ...base, supportWiFi: false, macAddress: uuid };
  }

  private lookup(o: ConnectOptions | undefined): RadioDevice {
    const byUuid = o?.uuid ? this.scanned.get(o.uuid) : undefined;
    const found =
      byUuid ?? [...this.scanned.values()].find((d) => o?.serialNumber && d.sn === o.serialNumber);
    if (!found) throw new BridgeError('ERR_PLAUD_UNKNOWN_DEVICE', MESSAGES.unknownDevice);
    return found;
  }

  async connectBleDevice(o: ConnectOptions): Promise<void> {
    this.scanRun++; // connecting stops a scan, as both bridges do
    const device = this.lookup(o);
    this.startConnect(device, undefined);
  }

  async recoveryConnectBleDevice(o: ConnectOptions | ScanDevice, historicalId: string): Promise<void> {
    if (typeof historicalId !== 'string' || !historicalId) {
      throw new BridgeError('ERR_PLAUD_ARGS', MESSAGES.historicalIdRequired);
    }
    this.scanRun++;
    const device = this.lookup(o as ConnectOptions);
    this.startConnect(device, historicalId);
  }

  private startConnect(device: RadioDevice, pinnedId: string | undefined): void {
    const session = this.session;
    if (!session) throw new BridgeError('ERR_PLAUD', MESSAGES.notInitialised);
    this.dropConnection();
    const run = ++this.connectRun;
    void this.connect(session, device, pinnedId, run).catch((e) => this.fail(e));
  }

  private async connect(session: Session, device: RadioDevice, pinnedId: string | undefined, run: number) {
    const outcome = await this.handshake(session, device, pinnedId);
    const ok = await showHandshake(outcome, {
      platform: this.options.platform,
      waits: this.waits,
      emit: this.emit,
      uuid: this.shownUuid(device),
      current: () => run === this.connectRun,
      setLink: (up) => {
        this.linkUp = up;
      },
    });
    if (!ok || run !== this.connectRun) return;
    this.bound = device;
    this.pump = startPump(
      this.options.link,
      device.sn,
      session.userToken,
      this.options.pollMs ?? 250,
      this.emit,
      (e) => this.fail(e),
    );
  }

  /** The SDK's prerequisites (key pair, serial signature), then the radio's handshake. */
  private async handshake(
    session: Session,
    device: RadioDevice,
    pinnedId: string | undefined,
  ): Promise<HandshakeOutcome> {
    const keys = await session.keys;
    const signed = keys && (await this.sign(session, device.sn));
    if (!keys || !signed)
      return { ok: false, reason: 'HANDSHAKE_FAIL', message: 'partner key pair or sn signature missing' };
    if (!pinnedId && !handshakeTokenOf(session.userToken)) {
      return { ok: false, reason: 'UUID_IS_EMPTY', message: 'no sub in the user token' };
    }
    return this.options.link.handshake({
      sn: device.sn,
      uuid: device.uuid,
      userToken: session.userToken,
      ...(pinnedId ? { pinnedId } : {}),
      clear: Boolean(pinnedId),
    });
  }

  /** sn-sign once per serial; a failure is not cached, so the next connect signs again. */
  private sign(session: Session, sn: string): Promise<boolean> {
    let p = session.signed.get(sn);
    if (!p) {
      p = this.options.link.snSign(session.sdkApi, session.userToken, sn).then(
        (r) => r.ok,
        (e) => {
          this.fail(e);
          return false;
        },
      );
      session.signed.set(sn, p);
      void p.then((ok) => ok || session.signed.delete(sn));
    }
    return p;
  }

  private dropConnection(): void {
    this.connectRun++;
    this.pump?.stop();
    this.pump = undefined;
    this.bound = undefined;
  }

  async disconnect(): Promise<void> {
    const device = this.bound;
    const wasUp = this.linkUp;
    this.dropConnection();
    this.linkUp = false;
    if (!wasUp) return;
    const token = this.session?.userToken ?? '';
    void (async () => {
      if (device) await this.options.link.disconnect(device.sn, token);
      await this.waits.wait('disconnect');
      this.emit('connectState', { connected: false, failed: false, state: 0 });
    })().catch((e) => this.fail(e));
  }

  /** Without a bound device the command cannot be sent: no event (a documented choice). */
  async depair(o?: { clear?: boolean }): Promise<void> {
    const device = this.bound;
    if (!device || !this.session) return;
    const token = this.session.userToken;
    void (async () => {
      const { status } = await this.options.link.depair(device.sn, token, o?.clear ?? true);
      await this.waits.wait('depair');
      this.emit('depair', { status });
    })().catch((e) => this.fail(e));
  }

  async isConnected(): Promise<{ connected: boolean }> {
    return { connected: this.linkUp };
  }

  /** Sessions after `startSessionId` (0: all). Not connected: nothing is sent, no event. */
  async getFileList(o?: { startSessionId?: number }): Promise<void> {
    const device = this.bound;
    if (!device || !this.session) return;
    const from = o?.startSessionId ?? 0;
    const token = this.session.userToken;
    void (async () => {
      const recs = await this.options.link.recordings(device.sn, token);
      await this.waits.wait('fileList');
      const files = recs
        .filter((r) => r.sessionId > from)
        .map((r) => ({
          sn: device.sn,
          sessionId: r.sessionId,
          size: r.size,
          scenes: r.scene,
          channels: r.channels,
          isOgg: r.isOgg,
          isMusic: false,
          duration: r.duration,
        }));
      this.emit('fileList', { files });
    })().catch((e) => this.fail(e));
  }

  async exportAudio(o: ExportOptions): Promise<ExportResult> {
    const sessionId = o?.sessionId;
    if (typeof sessionId !== 'number' || !Number.isInteger(sessionId) || sessionId < 0) {
      throw new BridgeError('ERR_PLAUD_ARGS', MESSAGES.sessionRequired);
    }
    // An unknown format falls back to mp3, as both native modules' switch does.
    const format = FORMATS.includes(o.format as AudioFormat) ? (o.format as AudioFormat) : 'mp3';
    const device = this.bound;
    if (!device || !this.session) throw new BridgeError('ERR_PLAUD_EXPORT', MESSAGES.exportNotConnected);
    const got = await this.options.link.exportAudio(
      device.sn,
      this.session.userToken,
      sessionId,
      format,
      o.channels ?? 1,
    );
    if (!got) throw new BridgeError('ERR_PLAUD_EXPORT', MESSAGES.exportNoSession);
    for (const progress of [0, 25, 50, 75, 100]) {
      await this.waits.wait('exportStep');
      this.emit('exportProgress', { sessionId, progress, message: progress === 100 ? 'done' : 'exporting' });
    }
    const outputPath = `${EXPORT_DIR[this.options.platform]}/${device.sn}_${sessionId}.${got.format}`;
    this.exports.set(outputPath, got.bytes);
    return { sessionId, outputPath };
  }

  /** Bytes of an export by its outputPath (also a `file://` or `…/_capacitor_file_/…` URL). */
  readExport(path: string): Uint8Array | undefined {
    const marker = path.indexOf('_capacitor_file_');
    const raw = marker >= 0 ? decodeURIComponent(path.slice(marker + '_capacitor_file_'.length)) : path;
    return this.exports.get(raw.replace(/^file:\/\//, ''));
  }

  /** Stops polling and forgets the session (tests; a hot reload). */
  dispose(): void {
    this.dropConnection();
    this.scanRun++;
    this.linkUp = false;
  }
}
