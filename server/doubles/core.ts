import { ExportStore, exportAudio } from './audioExport.js';
import { CAPACITOR_MESSAGES } from './capacitorShape.js';
import { BridgeError, MESSAGES, radioRefusal } from './errors.js';
import { type Pump, startPump } from './eventPump.js';
import { type Emit, showLocalRefusal } from './handshakeShow.js';
import {
  type ConnectRequest,
  createPhone,
  type Fetch,
  isProtocol,
  type PhoneClient,
  ProtocolError,
  type ScanAnswer,
} from './phoneClient.js';
import { connectRefused, type RadioContext, scanRefused } from './radioAnswers.js';
import { type Reporter, reportOnce } from './reachability.js';
import { deviceMountFor, sdkHostFor } from './sdkCloud.js';
import { type Timing, type Wait, waitFor } from './timing.js';
import type {
  Bridge,
  ConnectOptions,
  ExportOptions,
  ExportResult,
  InitOptions,
  Platform,
  ScanDevice,
} from './types.js';

/**
 * One virtual phone's SDK, shared by both doubles: the nine methods plus the recovery
 * connect, mapped onto the device protocol in the native modules' order of checks, with the
 * answers a phone gives to calls out of order. The adapters add listeners and error shapes.
 */
export interface CoreOptions {
  bridge: Bridge;
  platform: Platform;
  /** The simulator the live hosts of `customDomain` stand for. */
  simulatorUrl: string;
  timing: Timing;
  /** Android: where the SDK's own key fetch goes (see sdkApiBase). */
  sdkBaseUrl: 'jp' | 'customDomain';
  pollMs: number;
  fetch: Fetch;
  onError: (e: unknown) => void;
}

interface Session {
  userToken: string;
  userId: string | undefined;
  phone: Promise<PhoneClient | undefined>;
  keys: Promise<boolean>;
  pump?: Pump;
}

export class BridgeCore {
  private readonly wait: Wait;
  private session: Session | undefined;
  /** Every device a scan showed, by the uuid the bridge showed (the native scan cache). */
  private readonly seen = new Map<string, ScanDevice>();
  private scanRun = 0;
  private connectRun = 0;
  private readonly exports = new ExportStore();

  /** Background failures, a lost simulator once per loss. */
  private readonly report: Reporter;

  constructor(
    private readonly o: CoreOptions,
    private readonly emit: Emit,
  ) {
    this.wait = waitFor(o.timing);
    this.report = reportOnce(o.onError);
  }

  async initSDK(init: InitOptions): Promise<void> {
    if (!init?.userAccessToken) throw new BridgeError('ERR_PLAUD_ARGS', MESSAGES.tokenRequired);
    if (!init.customDomain) throw new BridgeError('ERR_PLAUD_ARGS', MESSAGES.domainRequired);
    this.dispose();
    const session: Session = {
      userToken: init.userAccessToken,
      userId: init.userId,
      phone: Promise.resolve(undefined),
      keys: Promise.resolve(false),
    };
    const ready = this.openPhone(init).then(
      (r) => {
        if (r && this.session === session) session.pump = this.pump(r.phone);
        return r;
      },
      (e) => {
        this.report(e);
        return undefined;
      },
    );
    session.phone = ready.then((r) => r?.phone);
    session.keys = ready.then((r) => r?.keys ?? false);
    this.session = session;
  }

  /**
   * The SDK fetches its key pair where its base URL points; the device protocol's phone
   * creation is that check (`401 CLIENT_USER_NOT_FOUND` for a token of the other region) and
   * answers CORS, so it also works from a browser page. When the keys cannot arrive (Android's
   * JP default with a US token), the radio still scans: the phone is made where the app's
   * domain points, and every handshake fails on the phone, as on hardware.
   */
  private async openPhone(init: InitOptions): Promise<{ phone: PhoneClient; keys: boolean } | undefined> {
    const { platform, timing, simulatorUrl, fetch: f, sdkBaseUrl } = this.o;
    const options = { platform, timing };
    const sdkMount = deviceMountFor(sdkHostFor(platform, init.customDomain, sdkBaseUrl), simulatorUrl);
    const appMount = deviceMountFor(init.customDomain, simulatorUrl);
    try {
      return { phone: await createPhone(f, sdkMount, init.userAccessToken, options), keys: true };
    } catch (e) {
      if (!isProtocol(e, 401) || sdkMount === appMount) throw e;
      return { phone: await createPhone(f, appMount, init.userAccessToken, options), keys: false };
    }
  }

  private pump(phone: PhoneClient): Pump {
    return startPump(
      phone,
      this.o.pollMs,
      this.emit,
      (e) => {
        if (e.name !== 'scanResult') return;
        for (const d of (e.data as { devices: ScanDevice[] }).devices) this.seen.set(d.uuid, d);
      },
      this.report,
    );
  }

  private async phone(): Promise<PhoneClient | undefined> {
    return this.session?.phone;
  }
  private kick(): void {
    this.session?.pump?.kick();
  }

  async startScan(): Promise<void> {
    const run = ++this.scanRun;
    const phone = await this.phone();
    // No SDK session: Bluetooth never reports powered on; both bridges give up with this.
    if (!phone) return this.neverPoweredOn(run);
    let scan: ScanAnswer | undefined;
    try {
      scan = await phone.scan();
    } catch (e) {
      const radio = radioRefusal(e);
      if (!radio) this.report(e);
      else scanRefused(this.radioContext(run), radio);
      return;
    }
    for (const d of scan.devices) this.seen.set(d.uuid, d);
    this.kick();
  }

  private radioContext(run: number): RadioContext {
    const { bridge, platform } = this.o;
    return { bridge, platform, emit: this.emit, neverPoweredOn: () => this.neverPoweredOn(run) };
  }

  /** The bridges poll ~18 s for Bluetooth to power on, then give up with this. */
  private neverPoweredOn(run: number): void {
    void this.wait('poweredOnWait').then(() => {
      if (run === this.scanRun) this.emit('scanTimeout', { reason: 'bluetoothNotPoweredOn' });
    });
  }

  /** Android: whether the app holds its Bluetooth permissions (RN's requestPermissions). */
  async permissionsGranted(): Promise<boolean> {
    const phone = await this.phone();
    const state = phone ? await this.quietly(phone.state()) : undefined;
    return state?.permissions !== 'denied';
  }

  /**
   * A call the native bridge never fails (a scan, a disconnect) whose simulator side did
   * (a phone forgotten by a reset, the simulator gone): resolved, and reported to onError.
   */
  private async quietly<T>(p: Promise<T>): Promise<T | undefined> {
    try {
      return await p;
    } catch (e) {
      this.report(e);
      return undefined;
    }
  }

  async stopScan(): Promise<void> {
    this.scanRun++;
    const phone = await this.phone();
    if (phone) await this.quietly(phone.stopScan());
  }

  async connectBleDevice(c: ConnectOptions): Promise<void> {
    const deviceToken = c?.deviceToken ?? this.session?.userId;
    await this.connect({
      ...(c?.uuid ? { uuid: c.uuid } : {}),
      ...(c?.serialNumber ? { serialNumber: c.serialNumber } : {}),
      ...(deviceToken ? { deviceToken } : {}),
    });
  }

  async recoveryConnectBleDevice(device: ConnectOptions | ScanDevice, historicalId: string): Promise<void> {
    if (typeof historicalId !== 'string' || !historicalId) {
      throw new BridgeError('ERR_PLAUD_ARGS', MESSAGES.historicalIdRequired);
    }
    const d = device as ConnectOptions;
    await this.connect({
      ...(d?.uuid ? { uuid: d.uuid } : {}),
      ...(d?.serialNumber ? { serialNumber: d.serialNumber } : {}),
      pinned_id: historicalId,
      clear: true,
    });
  }

  private async connect(body: ConnectRequest): Promise<void> {
    const run = ++this.connectRun;
    this.scanRun++; // connecting stops a scan, as both bridges do
    const session = this.session;
    const phone = await this.phone();
    const known =
      (body.uuid && this.seen.get(body.uuid)) ||
      [...this.seen.values()].find((d) => d.serialNumber === body.serialNumber);
    const capAndroid = this.o.bridge === 'capacitor' && this.o.platform === 'android';
    if (!known) throw new BridgeError('ERR_PLAUD_UNKNOWN_DEVICE', MESSAGES.unknownDevice);
    // The Capacitor Android plugin looks the device up, then checks the SDK is initialised.
    if (!phone)
      throw capAndroid
        ? new BridgeError('ERR_PLAUD', CAPACITOR_MESSAGES.notInitialised)
        : new BridgeError('ERR_PLAUD_UNKNOWN_DEVICE', MESSAGES.unknownDevice);
    await this.quietly(phone.stopScan());
    if (!session || !(await session.keys)) {
      await this.quietly(phone.disconnect());
      void showLocalRefusal({
        platform: this.o.platform,
        wait: this.wait,
        emit: this.emit,
        uuid: known.uuid,
        reason: 'HANDSHAKE_FAIL',
        message: 'partner key pair not ready: the token is not valid where the SDK fetches its keys',
        current: () => run === this.connectRun,
      });
      return;
    }
    try {
      await phone.connect(body);
    } catch (e) {
      if (isProtocol(e, 404) && e.detail === 'UNKNOWN_DEVICE') {
        throw new BridgeError('ERR_PLAUD_UNKNOWN_DEVICE', MESSAGES.unknownDevice);
      }
      const radio = radioRefusal(e);
      if (radio) throw connectRefused(this.radioContext(this.scanRun), radio);
      if (isProtocol(e, 422) && body.pinned_id)
        throw new BridgeError('ERR_PLAUD_ARGS', MESSAGES.historicalIdInvalid);
      if (isProtocol(e, 404) && e.detail === 'PHONE_NOT_FOUND')
        throw new BridgeError('ERR_PLAUD_CONNECT', MESSAGES.phoneForgotten);
      throw new BridgeError(
        'ERR_PLAUD_CONNECT',
        e instanceof ProtocolError ? e.reason : (e as Error).message,
      );
    }
    this.kick();
  }

  async disconnect(): Promise<void> {
    this.connectRun++;
    const phone = await this.phone();
    if (phone) await this.quietly(phone.disconnect());
    this.kick();
  }

  /** Without a connected recorder the command cannot be sent: no event (a documented choice). */
  async depair(d?: { clear?: boolean }): Promise<void> {
    const phone = await this.phone();
    if (!phone) return;
    try {
      await phone.depair(d?.clear ?? true);
    } catch (e) {
      if (!isProtocol(e, 409)) this.report(e);
      return;
    }
    this.kick();
  }

  async isConnected(): Promise<{ connected: boolean }> {
    const phone = await this.phone();
    const state = phone ? await this.quietly(phone.state()) : undefined;
    return { connected: state?.connected ?? false };
  }

  /** Sessions after `startSessionId` (0: all). Not connected: nothing is sent, no event. */
  async getFileList(g?: { startSessionId?: number }): Promise<void> {
    const phone = await this.phone();
    if (!phone) return;
    const list = phone.recordings(Math.max(0, Math.floor(Number(g?.startSessionId ?? 0)) || 0));
    void list
      .then(async (files) => {
        await this.wait('fileList');
        this.emit('fileList', files);
      })
      .catch((e) => {
        if (!isProtocol(e, 409)) this.report(e);
      });
  }

  async exportAudio(x: ExportOptions): Promise<ExportResult> {
    return exportAudio(await this.phone(), x, {
      platform: this.o.platform,
      wait: this.wait,
      emit: this.emit,
      store: this.exports,
    });
  }

  /** Bytes of an export by its outputPath (also a `file://` or `…/_capacitor_file_/…` URL). */
  readExport(path: string): Uint8Array | undefined {
    return this.exports.read(path);
  }

  /** Stops polling and forgets the phone on the simulator (a new initSDK, a reconfigure). */
  dispose(): void {
    const s = this.session;
    this.session = undefined;
    this.scanRun++;
    this.connectRun++;
    this.seen.clear();
    if (!s) return;
    s.pump?.stop();
    void s.phone.then((p) => p?.forget()).catch(() => undefined);
  }
}
