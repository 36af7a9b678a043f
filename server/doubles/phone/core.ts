import { ExportStore, exportAudio } from './audioExport.js';
import { connectPhone } from './coreConnect.js';
import { type CoreOptions, openPhone, type Session } from './coreSession.js';
import { BridgeError, MESSAGES, radioRefusal } from './errors.js';
import { type Pump, penStateFor, startPump } from './eventPump.js';
import type { Emit } from './handshakeShow.js';
import { HandshakeWait } from './handshakeWait.js';
import { type ConnectRequest, isProtocol, type PhoneClient, type ScanAnswer } from './phoneClient.js';
import { type RadioContext, scanRefused } from './radioAnswers.js';
import { type Reporter, reportOnce } from './reachability.js';
import { type Wait, waitFor } from './timing.js';
import type { ConnectOptions, ExportOptions, ExportResult, InitOptions, ScanDevice } from './types.js';

/**
 * One virtual phone's SDK, shared by both doubles: the nine methods plus the recovery
 * connect, mapped onto the device protocol in the native modules' order of checks, with the
 * answers a phone gives to calls out of order. The adapters add listeners and error shapes.
 */
export class BridgeCore {
  private readonly wait: Wait;
  private session: Session | undefined;
  /** Every device a scan showed, by the uuid the bridge showed (the native scan cache). */
  private readonly seen = new Map<string, ScanDevice>();
  private scanRun = 0;
  private connectRun = 0;
  private readonly exports = new ExportStore();
  private readonly handshake = new HandshakeWait();

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
    // A new SDK session; the plugin's scan map outlives it (the plugins never clear theirs).
    this.endSession();
    const session: Session = {
      userToken: init.userAccessToken,
      userId: init.userId,
      phone: Promise.resolve(undefined),
      keys: Promise.resolve(false),
    };
    const ready = openPhone(this.o, init).then(
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

  private pump(phone: PhoneClient): Pump {
    return startPump(
      phone,
      this.o.pollMs,
      penStateFor(this.o.platform),
      this.emit,
      (e) => {
        this.handshake.observe(e.name, e.data);
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
  /** A scan's results hold a Node process until the app acts on them (eventPump.ts). */
  private holdScan(on: boolean): void {
    this.session?.pump?.holdScan(on);
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
    this.holdScan(true);
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
    this.holdScan(false);
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
    // Every bridge clears its isScanning flag on connect: a scan still waiting for Bluetooth
    // to power on never starts. Whether a running scan stops is the bridge's (scanOnConnect).
    this.scanRun++;
    this.holdScan(false);
    const keys = this.session?.keys;
    // Before the call: its events may come on a poll already under way.
    this.handshake.start();
    let sent = false;
    try {
      sent = await connectPhone(body, {
        bridge: this.o.bridge,
        platform: this.o.platform,
        stopsScan: this.o.scanOnConnect === 'stop',
        phone: await this.phone(),
        keys,
        seen: this.seen,
        wait: this.wait,
        emit: this.emit,
        quietly: (p) => this.quietly(p),
        permissionsGranted: () => this.permissionsGranted(),
        radioContext: () => this.radioContext(this.scanRun),
        current: () => run === this.connectRun,
      });
    } finally {
      if (!sent && run === this.connectRun) this.handshake.settle(false);
    }
    if (sent) this.kick();
  }

  async disconnect(): Promise<void> {
    this.connectRun++;
    this.handshake.settle(false);
    this.holdScan(false);
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
    const after = Math.max(0, Math.floor(Number(g?.startSessionId ?? 0)) || 0);
    const handshake = this.handshake.settled;
    // Asked between the radio link and the bind: the SDK answers once it has bound. Asking
    // the simulator only when bound keeps an expected refusal (409) out of a WebView's
    // console, also for a list asked on a link a refusal has already dropped.
    const list = handshake.then((bound) => (bound ? phone.recordings(after) : undefined));
    void list
      .then(async (files) => {
        if (!files) return;
        await this.wait('fileList');
        this.emit('fileList', files);
      })
      .catch((e) => {
        if (!isProtocol(e, 409)) this.report(e);
      });
  }

  async exportAudio(x: ExportOptions): Promise<ExportResult> {
    return exportAudio(await this.phone(), x, {
      bridge: this.o.bridge,
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
    this.endSession();
    this.seen.clear();
  }

  private endSession(): void {
    this.handshake.settle(false);
    const s = this.session;
    this.session = undefined;
    this.scanRun++;
    this.connectRun++;
    if (!s) return;
    s.pump?.stop();
    void s.phone.then((p) => p?.forget()).catch(() => undefined);
  }
}
