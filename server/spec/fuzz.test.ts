import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startUpload } from '../client/steps.js';
import { uploadAll } from '../client/upload.js';
import { MAX_ENTRY_BYTES } from '../control/entryBounds.js';
import { ControlClient } from '../embed/controlClient.js';
import { ADMIN_PREFIX, STORAGE_PREFIX } from '../http/apiPrefixes.js';
import { requestsFor } from '../testing/fuzzRequests.js';
import type { FuzzContext } from '../testing/fuzzTypes.js';
import { hostileExamples } from '../testing/hostileBodies.js';
import { basicAuth, DEMO_US, http, userToken } from '../testing/http.js';
import { answerProblems, sendRaw } from '../testing/rawExchange.js';
import { startTestServer, type TestServer } from '../testing/testServer.js';
import { transportExamples } from '../testing/transportRequests.js';
import { adminSpec, apiSpec, deviceSpec, type OperationInfo, type SpecIndex } from './openapi.js';

// Property-based fuzzing of every operation of both documents: generated requests (valid,
// half-valid and hostile parts mixed) against in-process simulators, each answer checked
// against the operation's declared responses. A fixed seed keeps `npm test` reproducible and
// a few seconds long; FUZZ_RUNS (runs per operation) and FUZZ_SEED widen it for soak runs.
const RUNS = Number(process.env.FUZZ_RUNS ?? 12);
const SEED = Number(process.env.FUZZ_SEED ?? 20261122);
const ADMIN_TOKEN = 'fuzz-admin-token';

let api: TestServer;
let admin: TestServer;
const contexts = new Map<SpecIndex, FuzzContext>();

beforeAll(async () => {
  // Two instances: admin requests create fault rules and reset state, which must not turn
  // into (deliberate, injected) 5xx answers of the partner API under test.
  api = await startTestServer();
  admin = await startTestServer({ adminToken: ADMIN_TOKEN });
  const tokens = await userToken(api.api, DEMO_US);
  const session = await startUpload(api.api, tokens.user, 2048);
  const done = await uploadAll(api.api, tokens.user, 1024, (_p, n) => new Uint8Array(n).fill(7));
  const local = (url: string) => url.slice(url.indexOf(STORAGE_PREFIX));
  const partUrls = session.Parts.map((p) => local(p.PresignedUrl));
  const fileUrl = local(done.DownloadUrl ?? '');
  contexts.set(apiSpec(), {
    spec: apiSpec(),
    prefix: '/developer/api',
    authorizations: [
      basicAuth(DEMO_US.client_id, DEMO_US.secret_key).authorization!,
      `Bearer ${tokens.partner}`,
      `Bearer ${tokens.user}`,
    ],
    apiKeys: [{ id: DEMO_US.client_id, key: DEMO_US.api_key }],
    known: {
      uploadPart: partUrls,
      uploadPartPreflight: partUrls,
      downloadFile: [fileUrl],
      headFile: [fileUrl],
    },
  });
  // The device protocol, on the partner API's instance: a phone connected to a recorder with
  // a recording, so the fuzzer also reaches the answers behind a valid phone id.
  const sn = '8810FUZZ0000001';
  await http('POST', `${api.admin}/recorders/${sn}/arrange`, { json: { case: 'never_paired' } });
  await http('POST', `${api.admin}/recorders/${sn}/recordings`, {
    json: { duration_s: 1, start_time: '2026-01-01T00:00:00Z' },
  });
  const phone = (
    await http('POST', `${api.url}/__device/phones`, {
      headers: { authorization: `Bearer ${tokens.user}` },
      json: { timing: 'instant' },
    })
  ).body.phone_id as string;
  const at = `/__device/phones/${phone}`;
  await http('POST', `${api.url}${at}/scan`, { json: {} });
  await http('POST', `${api.url}${at}/connect`, { json: { serialNumber: sn } });
  contexts.set(deviceSpec(), {
    spec: deviceSpec(),
    prefix: '/__device',
    authorizations: [`Bearer ${tokens.user}`],
    apiKeys: [],
    known: {
      getPhone: [at],
      pollEvents: [`${at}/events?after=0`],
      listRecordings: [`${at}/recordings`],
      exportRecording: [`${at}/recordings/1767225600/audio?format=wav`],
    },
  });
  contexts.set(adminSpec(), {
    spec: adminSpec(),
    prefix: ADMIN_PREFIX,
    authorizations: [`Bearer ${ADMIN_TOKEN}`],
    apiKeys: [],
    known: { getDevice: ['/__admin/devices/8810B30227290003'] },
  });
});

afterAll(async () => {
  await api?.stop();
  await admin?.stop();
});

const operations = (spec: SpecIndex) => [...spec.operations.values()].map((op) => [op.id, op] as const);

async function fuzz(spec: SpecIndex, op: OperationInfo, server: TestServer) {
  const ctx = contexts.get(spec)!;
  const withPrefix = op.storage ? { ...ctx, prefix: STORAGE_PREFIX } : ctx;
  await fc.assert(
    fc.asyncProperty(requestsFor(withPrefix, op), async (req) => {
      const res = await sendRaw(server.url, req);
      const problems = answerProblems(spec, op, res);
      if (problems.length) throw new Error(`${req.method} ${req.path.slice(0, 200)}\n${problems.join('\n')}`);
    }),
    {
      seed: SEED,
      numRuns: RUNS,
      endOnFailure: true,
      examples: hostileExamples(withPrefix, op).map((r) => [r] as [typeof r]),
    },
  );
}

/** Every transport-level mistake, sent to `op`: every answer's problems (none when all are declared). */
async function transport(spec: SpecIndex, op: OperationInfo, server: TestServer): Promise<string[]> {
  const ctx = contexts.get(spec)!;
  const withPrefix = op.storage ? { ...ctx, prefix: STORAGE_PREFIX } : ctx;
  const problems: string[] = [];
  for (const req of transportExamples(withPrefix, op)) {
    const res = await sendRaw(server.url, req);
    const found = answerProblems(spec, op, res);
    if (found.length)
      problems.push(`${req.method} ${req.path.slice(0, 120)} (${req.label}): ${found.join('; ')}`);
  }
  return problems;
}

describe('transport errors are declared on every operation', () => {
  it.each(operations(apiSpec()))('%s (openapi.yaml)', async (_id, op) => {
    expect(await transport(apiSpec(), op, api)).toEqual([]);
  });
  it.each(operations(adminSpec()))('%s (admin.openapi.yaml)', async (_id, op) => {
    expect(await transport(adminSpec(), op, admin)).toEqual([]);
  });
  it.each(operations(deviceSpec()))('%s (device.openapi.yaml)', async (_id, op) => {
    expect(await transport(deviceSpec(), op, api)).toEqual([]);
  });
});

describe('fuzzing the partner API (openapi.yaml)', () => {
  it.each(operations(apiSpec()))('%s answers as declared, never 5xx', async (_id, op) => {
    await fuzz(apiSpec(), op, api);
  });
});

describe('fuzzing the control API (admin.openapi.yaml)', () => {
  it.each(operations(adminSpec()))('%s answers as declared, never 5xx', async (_id, op) => {
    await fuzz(adminSpec(), op, admin);
  });
});

describe('fuzzing the device protocol (device.openapi.yaml)', () => {
  it.each(operations(deviceSpec()))('%s answers as declared, never 5xx', async (_id, op) => {
    await fuzz(deviceSpec(), op, api);
  });
});

describe('after the fuzzing', () => {
  it('every journal entry stays within its byte bound, whatever the requests sent', async () => {
    // Every entry: the listing's pages one after the other (at most 1,000 a page).
    const entries = await new ControlClient(api.admin).all('listRequests');
    expect(entries.length).toBeGreaterThan(0);
    for (const e of entries)
      expect(Buffer.byteLength(JSON.stringify(e)), e.id).toBeLessThanOrEqual(MAX_ENTRY_BYTES);
  });

  it('both instances still answer', async () => {
    expect((await http('GET', `${api.admin}/health`)).status).toBe(200);
    expect(
      (await http('GET', `${admin.admin}/health`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } }))
        .status,
    ).toBe(200);
  });
});
