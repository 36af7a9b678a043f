import { describe, expect, it } from 'vitest';
import { decodeJwt } from './domain/jwt.js';
import { bearer, DEMO_US, exchangeToken, http, userToken } from './testing/http.js';
import { useTestServers } from './testing/useTestServers.js';

const servers = useTestServers();

const start = servers.start;

describe('state survives a restart with the same --data-dir', () => {
  it('keeps apps, clock offset and token validity', async () => {
    const dir = await servers.tempDir();
    const a = await start({ inMemory: false, dataDir: dir });
    const app = await http('POST', `${a.admin}/apps`, {
      json: { client_id: 'restart-app', secret_key: 'restart-secret' },
    });
    expect(app.status).toBe(201);
    await http('POST', `${a.admin}/clock`, { json: { advance_ms: 60_000 } });
    const { user } = await userToken(a.api, { client_id: 'restart-app', secret_key: 'restart-secret' });
    await a.stop();

    const b = await start({ inMemory: false, dataDir: dir });
    const clock = await http('GET', `${b.admin}/clock`);
    expect(clock.body.offset_ms).toBeGreaterThanOrEqual(60_000);
    const token = await exchangeToken(b.api, { client_id: 'restart-app', secret_key: 'restart-secret' });
    expect(token.status).toBe(200);
    // A user token minted before the restart still verifies (the signing secret persisted):
    // a user token where a partner token is needed is refused for its kind, not its signature.
    const r = await http('POST', `${b.api}/open/partner/users/access-token`, {
      headers: bearer(user),
      json: { user_id: 'abcdef' },
    });
    expect(r.body.detail).toBe('WRONG_TOKEN_KIND');
    expect(decodeJwt(user).client_id).toBe('restart-app');
  });
});

describe('control API', () => {
  it('creates apps with generated values and refuses duplicates', async () => {
    const s = await start();
    const r = await http('POST', `${s.admin}/apps`, { json: { region: 'jp' } });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ region: 'jp', error_shape: 'spec' });
    expect(r.body.result_shape).toBeUndefined(); // follows --result-shape
    for (const k of ['client_id', 'secret_key', 'api_key']) expect(r.body[k]).toEqual(expect.any(String));
    const dup = await http('POST', `${s.admin}/apps`, { json: { client_id: r.body.client_id } });
    expect(dup.status).toBe(409);
    expect(dup.body.detail).toBe('APP_EXISTS');
    const bad = await http('POST', `${s.admin}/apps`, { json: { region: 'cn', secret_key: 'x' } });
    expect(bad.status).toBe(422);
    expect(bad.body.detail.map((d: { loc: string[] }) => d.loc.join('.')).sort()).toEqual([
      'body.region',
      'body.secret_key',
    ]);
  });

  it('moves the clock by advance_ms or to an instant, and reset clears it and the apps', async () => {
    const s = await start();
    const moved = await http('POST', `${s.admin}/clock`, { json: { now: '2030-01-01T00:00:00Z' } });
    expect(Date.parse(moved.body.now)).toBeGreaterThanOrEqual(Date.parse('2030-01-01T00:00:00Z'));
    expect(Date.parse(moved.body.now)).toBeLessThan(Date.parse('2030-01-01T00:00:05Z'));
    const both = await http('POST', `${s.admin}/clock`, {
      json: { now: '2030-01-01T00:00:00Z', advance_ms: 1 },
    });
    expect(both.status).toBe(422);
    await http('POST', `${s.admin}/apps`, { json: { client_id: 'temp-app' } });
    expect((await http('POST', `${s.admin}/reset`)).status).toBe(204);
    expect((await http('GET', `${s.admin}/clock`)).body.offset_ms).toBe(0);
    const apps = (await http('GET', `${s.admin}/apps`)).body.map((a: { client_id: string }) => a.client_id);
    expect(apps).toContain(DEMO_US.client_id);
    expect(apps).not.toContain('temp-app');
  });

  it('freezes the clock so only explicit moves change it, across a restart too', async () => {
    const dir = await servers.tempDir();
    const s = await start({ inMemory: false, dataDir: dir });
    const frozen = await http('POST', `${s.admin}/clock`, { json: { freeze: true } });
    expect(frozen.body.frozen).toBe(true);
    await new Promise((r) => setTimeout(r, 30));
    expect((await http('GET', `${s.admin}/clock`)).body.now).toBe(frozen.body.now);
    const moved = await http('POST', `${s.admin}/clock`, { json: { advance_ms: 1500 } });
    expect(Date.parse(moved.body.now) - Date.parse(frozen.body.now)).toBe(1500);
    await s.stop();
    const again = await start({ inMemory: false, dataDir: dir });
    expect((await http('GET', `${again.admin}/clock`)).body).toMatchObject({
      now: moved.body.now,
      frozen: true,
    });
    const thawed = await http('POST', `${again.admin}/clock`, { json: { freeze: false } });
    expect(thawed.body.frozen).toBe(false);
    await new Promise((r) => setTimeout(r, 30));
    expect(Date.parse((await http('GET', `${again.admin}/clock`)).body.now)).toBeGreaterThan(
      Date.parse(moved.body.now),
    );
    expect((await http('POST', `${again.admin}/clock`, { json: { freeze: 'yes' } })).status).toBe(422);
  });

  it('is protected by --admin-token when set', async () => {
    const s = await start({ adminToken: 'let-me-in' });
    expect((await http('GET', `${s.admin}/apps`)).status).toBe(401);
    expect((await http('GET', `${s.admin}/apps`, { headers: bearer('let-me-in') })).status).toBe(200);
  });

  it('serves its own OpenAPI document', async () => {
    const s = await start();
    const r = await http('GET', `${s.admin}/openapi.yaml`);
    expect(r.status).toBe(200);
    expect(r.text).toContain('operationId: setClock');
  });
});

describe('errors', () => {
  it('answers unknown paths and malformed JSON with clear JSON, never a stack', async () => {
    const s = await start();
    const nf = await http('GET', `${s.api}/nope`);
    expect(nf.status).toBe(404);
    expect(nf.body.detail).toBe('NOT_FOUND');
    const bad = await http('POST', `${s.api}/open/partner/users/access-token`, {
      raw: '{"user_id":',
      headers: { 'content-type': 'application/json' },
    });
    expect(bad.status).toBe(422);
    expect(bad.body.detail[0].type).toBe('json_invalid');
    expect(bad.text).not.toMatch(/at .*\.js/);
  });

  it('answers an app with error_shape live in the live shape, even when refused at authentication', async () => {
    const s = await start();
    await http('POST', `${s.admin}/apps`, {
      json: { client_id: 'live-errors', secret_key: 'live-secret-0', error_shape: 'live' },
    });
    const { user, partner } = await userToken(s.api, {
      client_id: 'live-errors',
      secret_key: 'live-secret-0',
    });
    const wrongKind = await http('POST', `${s.api}/open/partner/users/access-token`, {
      headers: bearer(user),
      json: { user_id: 'abcdef' },
    });
    expect(wrongKind.status).toBe(403);
    expect(wrongKind.body).toEqual({ code: 403, message: expect.stringMatching(/^WRONG_TOKEN_KIND: /) });
    // The auth endpoints keep {"detail": CODE} on live too; 422s keep the FastAPI list.
    const badSecret = await exchangeToken(s.api, { client_id: 'live-errors', secret_key: 'nope' });
    expect(badSecret.body.detail).toBe('CLIENT_NOT_FOUND');
    const invalid = await http('POST', `${s.api}/open/partner/users/access-token`, {
      headers: bearer(partner),
      json: {},
    });
    expect(invalid.body.detail[0].loc).toEqual(['body', 'user_id']);
    // Another app on the same simulator keeps the spec shape.
    const other = await userToken(s.api, DEMO_US);
    const specShape = await http('POST', `${s.api}/open/partner/users/access-token`, {
      headers: bearer(other.user),
      json: { user_id: 'abcdef' },
    });
    expect(specShape.body.detail).toBe('WRONG_TOKEN_KIND');
  });

  it('answers malformed percent-encoding in a path with 400 on every surface, not 500', async () => {
    const s = await start();
    const api = await http('GET', `${s.api}/open/partner/ai/transcriptions/%zz`, {
      headers: { 'x-client-id': DEMO_US.client_id, 'x-client-api-key': DEMO_US.api_key },
    });
    expect(api.status).toBe(400);
    expect(api.body.detail).toBe('InvalidURI');
    const storage = await http('GET', `${s.url}/storage/files/%zz?X-Amz-Signature=x`);
    expect(storage.status).toBe(400);
    expect(storage.text).toContain('<Code>InvalidURI</Code>');
  });

  it('a response that breaks the spec fails loudly, naming the field', async () => {
    const s = await start({ breakResponse: 'createUserToken:access_token' });
    const p = (await exchangeToken(s.api, DEMO_US)).body.access_token;
    const r = await http('POST', `${s.api}/open/partner/users/access-token`, {
      headers: bearer(p),
      json: { user_id: 'abcdef' },
    });
    expect(r.status).toBe(500);
    expect(r.body.detail).toBe('RESPONSE_VALIDATION_FAILED');
    expect(r.body.message).toContain('access_token');
  });

  it('--validate-responses holds storage errors to the spec too: a broken S3 error document is a loud 500', async () => {
    const url = '/storage/files/file_missing?X-Amz-Signature=x';
    const plain = await http('GET', `${(await start()).url}${url}`);
    expect(plain.status).toBeGreaterThanOrEqual(400);
    expect(plain.text).toMatch(/<Code>\w+<\/Code>/);
    // The same error without its required <Code>: what the break alone sends, unchecked...
    const unchecked = await start({ breakResponse: 'downloadFile:Code', validateResponses: false });
    const cut = await http('GET', `${unchecked.url}${url}`);
    expect(cut.status).toBe(plain.status);
    expect(cut.text).not.toContain('<Code>');
    // ...and what --validate-responses makes of it.
    const checked = await start({ breakResponse: 'downloadFile:Code' });
    const r = await http('GET', `${checked.url}${url}`);
    expect(r.status).toBe(500);
    expect(r.body.detail).toBe('RESPONSE_VALIDATION_FAILED');
    expect(r.body.message).toContain('/Error/Code is required');
  });
});

describe('background housekeeping', () => {
  it('sweeps expired refresh tokens and abandoned uploads on its timer, never in a request', async () => {
    const s = await start({ refreshTokenTtlS: 3600, uploadTtlS: 3600 });
    await s.housekeeper.stop(); // held until the requests below are done
    const { storage } = s.services;
    const refresh = s.services.deps.store.collection('refreshTokens');
    const { user } = await userToken(s.api, DEMO_US);
    const presign = () =>
      http('POST', `${s.api}/open/partner/files/upload/generate-presigned-urls`, {
        headers: bearer(user),
        json: { filesize: 10, filetype: 'mp3' },
      });
    expect((await presign()).status).toBe(200);
    expect(await Promise.all([refresh.count(), storage.uploads.count()])).toEqual([1, 1]);
    await http('POST', `${s.admin}/clock`, { json: { advance_ms: 3601_000 } });
    // Requests after the expiry do not sweep (they would wait for it)…
    expect((await exchangeToken(s.api, DEMO_US)).status).toBe(200);
    expect((await presign()).status).toBe(200);
    expect(await Promise.all([refresh.count(), storage.uploads.count()])).toEqual([2, 2]);
    // …the running simulator's timer does: restarted here, it ticks within a second.
    s.housekeeper.start();
    await expect
      .poll(() => Promise.all([refresh.count(), storage.uploads.count()]), { timeout: 5000 })
      .toEqual([1, 1]);
  });
});
