import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { uploadAll } from './client/upload.js';
import { basicAuth, bearer, DEMO_US, exchangeToken, http, OTHER_US, userToken } from './testing/http.js';
import type { TestServer } from './testing/testServer.js';
import { useTestServers } from './testing/useTestServers.js';

// Issue 45: whatever an app's traffic leaves behind is bounded per app (--keep-per-app), the
// oldest records going on the housekeeper's next tick; phones are capped with a 409.
const servers = useTestServers();
const KEEP = 2;
const start = () => servers.start({ keepPerApp: KEEP, phonesPerApp: 2, chunkSize: 1024 });
const tick = (sim: TestServer) => sim.housekeeper.tick();

const refresh = (sim: TestServer, token: string) =>
  http('POST', `${sim.api}/oauth/partner/access-token/refresh`, {
    headers: basicAuth(DEMO_US.client_id, DEMO_US.secret_key),
    form: { refresh_token: token },
  });

describe('per-app bounds (--keep-per-app)', () => {
  it('keeps the newest refresh tokens of an app valid; an older one answers INVALID_REFRESH_TOKEN', async () => {
    const sim = await start();
    const tokens: string[] = [];
    for (let i = 0; i < 4; i++) tokens.push((await exchangeToken(sim.api, DEMO_US)).body.refresh_token);
    // Another app's tokens are not counted against this one.
    const other = (await exchangeToken(sim.api, OTHER_US)).body.refresh_token as string;
    await tick(sim);
    const old = await refresh(sim, tokens[0]!);
    expect(old.status).toBe(401);
    expect(old.body.detail).toBe('INVALID_REFRESH_TOKEN');
    expect((await refresh(sim, tokens[1]!)).body.detail).toBe('INVALID_REFRESH_TOKEN');
    expect((await refresh(sim, tokens[3]!)).status).toBe(200);
    const theirs = await http('POST', `${sim.api}/oauth/partner/access-token/refresh`, {
      headers: basicAuth(OTHER_US.client_id, OTHER_US.secret_key),
      form: { refresh_token: other },
    });
    expect(theirs.status).toBe(200);
  });

  it('forgets the oldest files (bytes too) and transcription tasks beyond the bound', async () => {
    const sim = await start();
    const { user } = await userToken(sim.api, DEMO_US);
    const files = [];
    for (let i = 0; i < 3; i++) files.push(await uploadAll(sim.api, user, 100, () => randomBytes(100)));
    const keys = { 'x-client-id': DEMO_US.client_id, 'x-client-api-key': DEMO_US.api_key };
    const tasks: string[] = [];
    for (const f of files) {
      const r = await http('POST', `${sim.api}/open/partner/ai/transcriptions/`, {
        headers: keys,
        json: { file_url: f.DownloadUrl },
      });
      tasks.push(r.body.transcription_id);
    }
    // The tasks read their audio in the background: until then they are in use and stay.
    for (const id of tasks)
      await http('GET', `${sim.api}/open/partner/ai/transcriptions/${id}`, { headers: keys });
    await tick(sim);
    // A task whose audio read was still being written stays touched: the next tick takes it.
    await tick(sim);
    expect((await fetch(files[0]!.DownloadUrl)).status).toBe(404);
    expect((await fetch(files[2]!.DownloadUrl)).status).toBe(200);
    const gone = await http('GET', `${sim.api}/open/partner/ai/transcriptions/${tasks[0]}`, {
      headers: keys,
    });
    expect(gone.status).toBe(404);
    const kept = await http('GET', `${sim.api}/open/partner/ai/transcriptions/${tasks[2]}`, {
      headers: keys,
    });
    expect(kept.status).toBe(200);
  });

  it("keeps an app's newest webhook deliveries and devices its users signed", async () => {
    const sim = await start();
    const ep = await http('POST', `${sim.admin}/apps/${DEMO_US.client_id}/webhooks`, {
      json: { url: 'http://127.0.0.1:9/never', enabled: false },
    });
    for (let i = 0; i < 4; i++)
      await http('POST', `${sim.admin}/apps/${DEMO_US.client_id}/webhooks/${ep.body.id}/test`, { json: {} });
    const { user } = await userToken(sim.api, DEMO_US);
    const serials = ['881BOUND0001', '881BOUND0002', '881BOUND0003'];
    for (const sn of serials)
      await http('POST', `${sim.api}/open/partner/sdk/sn-sign`, {
        headers: bearer(user),
        json: { type: 'notepro', sn },
      });
    await tick(sim);
    const log = await http('GET', `${sim.admin}/apps/${DEMO_US.client_id}/webhook-deliveries`);
    expect(log.body).toHaveLength(KEEP);
    const binding = (sn: string) =>
      http('GET', `${sim.api}/open/partner/sdk/binding?type=notepro&sn=${sn}`, { headers: bearer(user) });
    expect((await binding(serials[0]!)).status).toBe(404);
    expect((await binding(serials[2]!)).status).toBe(200);
    // A fixture device belongs to no app and stays.
    expect((await http('GET', `${sim.admin}/devices`)).body.length).toBeGreaterThan(KEEP);
  });
});

describe('phones per app (--phones-per-app)', () => {
  it('refuses one more with 409 TOO_MANY_PHONES, then makes room by forgetting a stale unconnected phone', async () => {
    const sim = await start();
    const { user } = await userToken(sim.api, DEMO_US);
    const make = () => http('POST', `${sim.url}/__device/phones`, { headers: bearer(user), json: {} });
    const first = await make();
    expect(first.status).toBe(201);
    expect((await make()).status).toBe(201);
    const refused = await make();
    expect(refused.status).toBe(409);
    expect(refused.body.detail).toBe('TOO_MANY_PHONES');
    expect(refused.body.message).toContain('--phones-per-app 2');
    // An hour later on the app's clock, the oldest unconnected phone counts as left behind.
    await http('POST', `${sim.admin}/clock`, {
      json: { client_id: DEMO_US.client_id, advance_ms: 3_600_000 },
    });
    expect((await make()).status).toBe(201);
    expect((await http('GET', `${sim.url}/__device/phones/${first.body.phone_id}`)).status).toBe(404);
  });
});
