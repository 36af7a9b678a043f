import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DriftReport } from '../contract/drift.js';
import { type SimulatorHandle, startSimulator } from '../embed/startSimulator.js';
import { compareRun } from '../testing/compareRun.js';
import { bearer, http } from '../testing/http.js';
import { walkthrough } from '../testing/walkthroughFlow.js';

/**
 * Record mode end to end: an upstream simulator with documented variants stands in for live
 * (the live result shape, a fault rule, a clock moved an hour on), a second instance records
 * the README walkthrough through its base URL, and `compare` replays the recording against a
 * fresh simulator. The recording must be HAR 1.2, hold none of the secrets the client used,
 * and show exactly the injected differences.
 */
let upstream: SimulatorHandle;
let dir: string;
let file: string;
let har: string;
let secrets: string[];
let audio: Buffer;
const APP = {
  client_id: 'live-stand-in-01',
  secret_key: 'sk_standin_Secret_4242424242',
  api_key: 'ak_standin_Key_4242424242',
};

/** The transcription's length on the upstream and on the replay's target (walkthrough.test.ts). */
const TASK_MS = 2400;
let replayTarget: SimulatorHandle;
/** `compare` against a simulator whose tasks take as long as the upstream's did. */
const compare = (args: string[]) => compareRun([...args, '--target', replayTarget.url]);

beforeAll(async () => {
  upstream = await startSimulator({ config: { transcriptionDelay: TASK_MS } });
  replayTarget = await startSimulator({ config: { transcriptionDelay: TASK_MS } });
  await upstream.control.createApp({ ...APP, region: 'us', result_shape: 'live' });
  await upstream.control.call('createFault', {
    body: {
      operation: 'getDeviceBinding',
      status: 503,
      body: { detail: 'SERVICE_UNAVAILABLE', message: 'try again later' },
      times: 1,
      match: { client_id: APP.client_id },
    },
  });
  dir = await mkdtemp(join(tmpdir(), 'psim-record-'));
  const recorder = await startSimulator({ config: { record: dir, upstream: upstream.url } });
  try {
    const flow = await walkthrough({
      root: recorder.url,
      app: APP,
      userId: 'partner-user-4711',
      refresh: true,
      pollMs: (TASK_MS * 2) / 3, // far from the task's change of shape (walkthrough.test.ts says why)
    });
    secrets = flow.secrets;
    audio = flow.audio;
    // The moved clock: an hour on, the partner token has expired upstream.
    await upstream.control.advanceClock(3_601_000, APP.client_id);
    const late = await http('POST', `${recorder.url}/developer/api/open/partner/users/access-token`, {
      headers: bearer(flow.partnerToken),
      json: { user_id: 'partner-user-4711' },
    });
    expect(late.status).toBe(401);
  } finally {
    await recorder.stop();
  }
  const files = (await readdir(dir)).filter((f) => f.endsWith('.har'));
  expect(files).toHaveLength(1);
  file = join(dir, files[0]!);
  har = await readFile(file, 'utf8');
}, 60_000);

afterAll(async () => {
  await upstream?.stop();
  await replayTarget?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('serve --record', () => {
  it('writes valid HAR 1.2, with the app and region, every exchange of the session', async () => {
    const schema = JSON.parse(
      await readFile(join(import.meta.dirname, 'testdata', 'har-1.2.schema.json'), 'utf8'),
    );
    // ajv and ajv-formats are CommonJS: their default exports, as the simulator loads them.
    const require = createRequire(import.meta.url);
    const { default: Ajv } = require('ajv') as typeof import('ajv');
    const { default: addFormats } = require('ajv-formats') as typeof import('ajv-formats');
    const ajv = new Ajv({ allErrors: true, strict: false });
    addFormats(ajv);
    const valid = ajv.compile(schema);
    const doc = JSON.parse(har);
    expect(valid(doc), JSON.stringify(valid.errors?.slice(0, 3))).toBe(true);
    // The schema does refuse what is not HAR 1.2 (a field out of place, one missing).
    const broken = structuredClone(doc);
    delete broken.log.entries[0].timings;
    broken.log.entries[1].response.extra = 1;
    expect(valid(broken)).toBe(false);
    expect(valid.errors?.length).toBe(2);
    expect(doc.log._app).toBe(APP.client_id);
    expect(doc.log._region).toBe('us');
    const ops = doc.log.entries.map(
      (e: { _operation: string; response: { status: number } }) => `${e._operation} ${e.response.status}`,
    );
    expect(ops).toEqual(
      expect.arrayContaining([
        'getPartnerToken 200',
        'refreshPartnerToken 200',
        'getDeviceBinding 503',
        'uploadPart 200',
        'downloadFile 200',
        'createUserToken 401',
      ]),
    );
  });

  it('holds none of the secrets the client used, and audio only as length and MD5', () => {
    expect(secrets.length).toBeGreaterThan(10);
    for (const s of secrets) expect(har, `secret ${s.slice(0, 4)}… in the recording`).not.toContain(s);
    expect(har).not.toContain('partner-user-4711');
    expect(har).not.toMatch(/client_user_[0-9a-f]{8}-/);
    expect(har).not.toContain(audio.subarray(4000, 4040).toString('base64'));
    expect(har).not.toContain(audio.subarray(4000, 4040).toString('latin1'));
    expect(har).toContain('bytes not kept: 23760 bytes');
    // A session still reads in order: one placeholder per distinct secret.
    expect(har).toMatch(/"authorization","value":"Bearer redacted-\d+"/);
  });

  it('compare finds exactly the injected differences and nothing else', async () => {
    const { code, out } = await compare([file, '--json']);
    expect(code).toBe(0);
    const report = JSON.parse(out) as DriftReport;
    const kinds = new Set(report.drift.map((d) => `${d.operation} ${d.kind} ${d.main}→${d.compare}`));
    const statusDrift = report.drift.filter((d) => d.kind === 'status');
    expect(statusDrift.map((d) => `${d.operation} ${d.main} ${d.compare}`)).toEqual([
      'getDeviceBinding 503 200',
      'createUserToken 401 200',
    ]);
    const rest = report.drift.filter((d) => d.kind !== 'status');
    expect(rest.length, [...kinds].join('\n')).toBeGreaterThan(0);
    for (const d of rest) {
      expect(d.operation).toBe('getTranscription');
      expect(d.kind).toBe('only in compare');
      expect(d.field).toMatch(/^\/data\/segments/);
    }
    expect(new Set(rest.map((d) => d.scenario)).size).toBe(1);
  }, 30_000);

  it('compare --fail-on-drift exits 1; the Markdown names each exchange', async () => {
    const { code, out } = await compare([file, '--fail-on-drift']);
    if (process.env.SHOW_MD) console.log(out);
    expect(code).toBe(1);
    expect(out).toContain('# Recording drift');
    expect(out).toMatch(/\| #\d+ \| getDeviceBinding \| 503 \| status \|/);
  }, 30_000);

  it('compare --as-faults turns the recorded service failures the simulator would not give into fault rules', async () => {
    const target = await startSimulator();
    try {
      const { code, err } = await compareRun([file, '--target', target.url, '--as-faults']);
      expect(code).toBe(0);
      const rules = await target.control.call('listFaults');
      // The expired token's 401 is the client's own error: drift to look into, never a rule
      // (it would refuse the app's good tokens too).
      expect(rules.map((r) => `${r.operation} ${r.status} ${r.times}`).sort()).toEqual([
        'getDeviceBinding 503 1',
      ]);
      expect(err).toMatch(/no rule for #\d+ createUserToken 401: the client's own error/);
      expect(rules.find((r) => r.operation === 'getDeviceBinding')?.body).toEqual({
        detail: 'SERVICE_UNAVAILABLE',
        message: 'try again later',
      });
      expect(rules.every((r) => r.match?.client_id === APP.client_id)).toBe(true);
      expect(err).toContain('created 1 fault rule(s)');
    } finally {
      await target.stop();
    }
  }, 30_000);
});
