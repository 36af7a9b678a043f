import PlaudSdkDefault, {
  configurePlaudSdkDouble,
  type EventName,
  type EventPayloads,
  isAvailable,
  type PlaudScanDevice,
  PlaudSdk,
} from 'plaud-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PartnerClient } from '../server/client/partnerClient.js';
import { fetchBinding } from '../server/client/recovery.js';
import { TokenService } from '../server/domain/tokens.js';
import { SHARED_EVENTS } from '../server/doubles/phone/types.js';
import { DEMO_US, http } from '../server/testing/http.js';
import { startTestServer, type TestServer } from '../server/testing/testServer.js';

// A partner's React Native app, as the demo apps are written, against the RN double imported
// as 'plaud-sdk' (the vitest alias): initSDK → scan → connect → bind in the cloud → list →
// a recording made on the device → export mp3 → upload and transcribe with the partner API
// client → unbind and depair. Hardware timing on the simulator's running clock.

let sim: TestServer;
beforeAll(async () => {
  sim = await startTestServer({ transcriptionDelay: 1000 });
});
afterAll(async () => {
  configurePlaudSdkDouble({ timing: 'instant', onError: () => {} });
  await sim.stop();
});

type Seen = Array<{ name: EventName; data: unknown }>;
function listen(): { seen: Seen; stop: () => void } {
  const seen: Seen = [];
  const subs = SHARED_EVENTS.map((name) =>
    PlaudSdk.addListener(name, (data: unknown) => seen.push({ name, data })),
  );
  return {
    seen,
    stop: () => {
      for (const s of subs) s.remove();
    },
  };
}
const next = async <K extends EventName>(
  seen: Seen,
  name: K,
  from: number,
  ok: (d: EventPayloads[K]) => boolean = () => true,
) => {
  let hit: EventPayloads[K] | undefined;
  await expect
    .poll(
      () => {
        hit = seen.slice(from).find((e) => e.name === name && ok(e.data as EventPayloads[K]))?.data as
          | EventPayloads[K]
          | undefined;
        return hit !== undefined;
      },
      { timeout: 15_000, interval: 25 },
    )
    .toBe(true);
  return hit!;
};
const press = async (sn: string, body: object) => {
  const r = await http('POST', `${sim.admin}/recorders/${sn}/record`, { json: body });
  expect(r.status, r.text).toBe(200);
};

describe('a React Native app on the RN double', () => {
  it('exports the module as the wrapper does', () => {
    expect(PlaudSdkDefault).toBe(PlaudSdk);
    expect(isAvailable).toBe(true);
  });

  it('pairs, syncs a recording made on the device, transcribes it and unpairs', async () => {
    const sn = '8820FLOW00000001';
    const userId = 'rn-flow-user';
    const client = new PartnerClient({ api: sim.api, app: DEMO_US, userId });
    const arranged = await http('POST', `${sim.admin}/recorders/${sn}/arrange`, {
      json: { case: 'never_paired' },
    });
    expect(arranged.status, arranged.text).toBe(200);
    const errors: unknown[] = [];
    // Defaults only: the official module repoints the SDK's key fetch to customDomain.
    configurePlaudSdkDouble({ simulatorUrl: sim.url, platform: 'android', onError: (e) => errors.push(e) });
    const { seen, stop } = listen();

    await PlaudSdk.initSDK({
      userAccessToken: await client.userToken(),
      customDomain: 'platform-us.plaud.ai',
      userId,
    });
    await PlaudSdk.startScan();
    const scan = await next(seen, 'scanResult', 0, (d) => d.devices.some((x) => x.serialNumber === sn));
    const device: PlaudScanDevice = scan.devices.find((x) => x.serialNumber === sn)!;
    expect(device.uuid).toMatch(/^([0-9A-F]{2}:){5}[0-9A-F]{2}$/);
    await PlaudSdk.stopScan();

    const t0 = Date.now();
    let mark = seen.length;
    await PlaudSdk.connectBleDevice({ uuid: device.uuid });
    expect(await next(seen, 'bind', mark)).toEqual({ sn, status: 0, protVersion: expect.any(Number) });
    // Hardware timing: the handshake takes about a second on the simulated (running) clock.
    expect(Date.now() - t0).toBeGreaterThanOrEqual(800);
    expect(seen.slice(mark).map((e) => e.name)).toEqual(['connectState', 'penState', 'bind']);
    expect(await PlaudSdk.isConnected()).toEqual({ connected: true });
    await client.bind(sn);

    mark = seen.length;
    await PlaudSdk.getFileList({ startSessionId: 0 });
    expect(await next(seen, 'fileList', mark)).toEqual({ files: [] });

    mark = seen.length;
    await press(sn, { action: 'start', scene: 1 });
    const started = await next(seen, 'recordStart', mark);
    await press(sn, { action: 'stop', duration_s: 4 });
    const stopped = await next(seen, 'recordStop', mark);
    expect(stopped).toMatchObject({ sessionId: started.sessionId, fileExist: true });

    mark = seen.length;
    await PlaudSdk.getFileList();
    const { files } = await next(seen, 'fileList', mark);
    expect(files).toEqual([
      expect.objectContaining({ sn, sessionId: started.sessionId, duration: 4, channels: 1 }),
    ]);

    mark = seen.length;
    const exported = await PlaudSdk.exportAudio({ sessionId: started.sessionId, format: 'mp3' });
    expect(exported.sessionId).toBe(started.sessionId);
    expect(
      seen
        .slice(mark)
        .filter((e) => e.name === 'exportProgress')
        .map((e) => (e.data as { progress: number }).progress),
    ).toEqual([0, 25, 50, 75, 100]);
    // A format the simulator cannot produce: named, with the ones it can; no internal URL.
    const opus = await PlaudSdk.exportAudio({ sessionId: started.sessionId, format: 'opus' }).catch((e) => e);
    expect(opus).toMatchObject({ code: 'ERR_PLAUD_EXPORT' });
    expect(opus.message).toMatch(/opus.*mp3/);
    expect(opus.message).not.toMatch(/__device|https?:|phones\//);
    const audio = PlaudSdk.readExport(exported.outputPath)!;
    expect(audio.length).toBeGreaterThan(1000);
    expect(audio[0]).toBe(0xff); // an MPEG frame sync

    const uploaded = await client.upload(audio, 'mp3');
    const task = await client.transcribe(uploaded.DownloadUrl);
    // Polled every 100-400 ms, not the default's 0.5-5 s: the task is done a second after it starts.
    const { task: done } = await client.poll(task.transcription_id, {
      deadlineMs: 20_000,
      backoff: { baseMs: 100, capMs: 400 },
    });
    expect(done.status).toBe('SUCCESS');
    expect(Math.abs((done.data as { duration: number }).duration - 4)).toBeLessThan(0.2);

    await client.unbind(sn);
    mark = seen.length;
    await PlaudSdk.depair({ clear: true });
    expect(await next(seen, 'depair', mark)).toEqual({ status: 0 });
    await PlaudSdk.disconnect();
    await next(seen, 'connectState', mark, (d) => !d.connected && d.state === 0);
    expect(await PlaudSdk.isConnected()).toEqual({ connected: false });
    const binding = await fetchBinding(sim.api, await client.userToken(), sn);
    expect(binding).toMatchObject({
      is_bind: false,
      bind_history: [TokenService.userSub(DEMO_US.client_id, userId)],
    });
    stop();
    expect(errors).toEqual([]);
    // The hardware's own timing and a transcription, on the running clock: about 5 s here.
  }, 60_000);

  it("sdkBaseUrl 'jp' plays the native SDK's own default: a US user's handshake fails", async () => {
    const sn = '8810FLOW00000002';
    const client = new PartnerClient({ api: sim.api, app: DEMO_US, userId: 'rn-jp-default' });
    expect(
      (await http('POST', `${sim.admin}/recorders/${sn}/arrange`, { json: { case: 'never_paired' } })).status,
    ).toBe(200);
    configurePlaudSdkDouble({
      simulatorUrl: sim.url,
      platform: 'android',
      timing: 'instant',
      sdkBaseUrl: 'jp',
      onError: () => {},
    });
    const { seen, stop } = listen();
    await PlaudSdk.initSDK({
      userAccessToken: await client.userToken(),
      customDomain: 'platform-us.plaud.ai',
    });
    await PlaudSdk.startScan();
    const scan = await next(seen, 'scanResult', 0, (d) => d.devices.some((x) => x.serialNumber === sn));
    await PlaudSdk.connectBleDevice({ serialNumber: sn });
    expect(await next(seen, 'connectState', 0)).toEqual({ connected: false, failed: true, state: 2 });
    expect(seen.some((e) => e.name === 'bind')).toBe(false);
    expect(scan.devices.length).toBeGreaterThan(0);
    stop();
  });

  it("hardware timing follows the app's simulated clock: frozen, Android's lock refusal waits for the 10 s timeout", async () => {
    const sn = '8810FLOW00000003';
    const userId = 'rn-frozen-clock';
    const client = new PartnerClient({ api: sim.api, app: DEMO_US, userId });
    const user = { sub: TokenService.userSub(DEMO_US.client_id, userId), client_id: DEMO_US.client_id };
    const arranged = await http('POST', `${sim.admin}/recorders/${sn}/arrange`, {
      json: { case: 'classic_lock', user },
    });
    expect(arranged.status, arranged.text).toBe(200);
    const clock = async (body: object) =>
      expect(
        (await http('POST', `${sim.admin}/clock`, { json: { client_id: DEMO_US.client_id, ...body } }))
          .status,
      ).toBe(200);
    configurePlaudSdkDouble({
      simulatorUrl: sim.url,
      platform: 'android',
      pollMs: 20,
      onError: () => {},
    });
    const { seen, stop } = listen();
    await clock({ freeze: true });
    try {
      await PlaudSdk.initSDK({
        userAccessToken: await client.userToken(),
        customDomain: 'platform-us.plaud.ai',
      });
      await PlaudSdk.startScan();
      await new Promise((r) => setTimeout(r, 300));
      expect(seen.filter((e) => e.name === 'scanResult')).toEqual([]);
      await clock({ advance_ms: 500 });
      await next(seen, 'scanResult', 0, (d) => d.devices.some((x) => x.serialNumber === sn));
      const mark = seen.length;
      await PlaudSdk.connectBleDevice({ serialNumber: sn });
      await clock({ advance_ms: 9_000 });
      await new Promise((r) => setTimeout(r, 300));
      expect(seen.slice(mark).filter((e) => e.name === 'connectState')).toEqual([]);
      await clock({ advance_ms: 1_500 });
      expect(await next(seen, 'connectState', mark)).toEqual({ connected: false, failed: true, state: 2 });
    } finally {
      await clock({ freeze: false });
      stop();
    }
  });

  it('a per-app reset forgets the phone: reported once, then calls answer as a phone without a link', async () => {
    const sn = '8810FLOW00000004';
    const client = new PartnerClient({ api: sim.api, app: DEMO_US, userId: 'rn-reset' });
    expect(
      (await http('POST', `${sim.admin}/recorders/${sn}/arrange`, { json: { case: 'never_paired' } })).status,
    ).toBe(200);
    const errors: Array<{ detail?: string }> = [];
    configurePlaudSdkDouble({
      simulatorUrl: sim.url,
      timing: 'instant',
      onError: (e) => errors.push(e as { detail?: string }),
    });
    const { seen, stop } = listen();
    await PlaudSdk.initSDK({
      userAccessToken: await client.userToken(),
      customDomain: 'platform-us.plaud.ai',
    });
    await PlaudSdk.startScan();
    await next(seen, 'scanResult', 0, (d) => d.devices.some((x) => x.serialNumber === sn));
    expect(
      (await http('POST', `${sim.admin}/reset`, { json: { client_id: DEMO_US.client_id } })).status,
    ).toBe(204);
    await expect.poll(() => errors.length).toBe(1);
    expect(errors[0]).toMatchObject({ detail: 'PHONE_NOT_FOUND' });
    const forgotten = await PlaudSdk.connectBleDevice({ serialNumber: sn }).catch((e) => e);
    expect(forgotten).toMatchObject({
      code: 'ERR_PLAUD_CONNECT',
      message: expect.stringContaining('initSDK'),
    });
    expect(forgotten.message).not.toMatch(/__device|https?:|phones\//);
    expect(await PlaudSdk.isConnected()).toEqual({ connected: false });
    await new Promise((r) => setTimeout(r, 200));
    expect(errors.filter((e) => e.detail === 'PHONE_NOT_FOUND').length).toBeLessThanOrEqual(3);
    stop();
  });
});
