import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { violations } from '../../contracts/lib/conform.js';
import { RateLimiter } from '../../contracts/lib/rateLimit.js';
import { redact, redactError, registerSecret } from '../../contracts/lib/redact.js';
import { ContractSettingsError, liveSettings, urlSettings } from '../../contracts/target/settings.js';
import { PollDeadlineExceeded, pollUntil } from '../client/poll.js';
import { retryAfterMs } from '../client/retry.js';
import { fromRoot } from '../core/root.js';
import { apiSpec } from '../spec/openapi.js';

/** A virtual clock: waits move it, nothing sleeps. */
function virtualTime() {
  let now = 0;
  const waits: number[] = [];
  return {
    now: () => now,
    wait: async (ms: number) => {
      waits.push(ms);
      now += ms;
    },
    waits,
  };
}

describe('pollUntil', () => {
  it('backs off exponentially with full jitter (each wait in [1, min(cap, base*2^n)])', async () => {
    const v = virtualTime();
    let calls = 0;
    const r = await pollUntil(
      async () => ({ value: ++calls }),
      (n) => n === 6,
      {
        backoff: { baseMs: 100, capMs: 1000, random: () => 0.999 },
        deadlineMs: 60_000,
        sleep: v.wait,
        now: v.now,
      },
    );
    expect(r.polls).toBe(6);
    expect(v.waits).toEqual([99, 199, 399, 799, 999]);
    const low = virtualTime();
    await pollUntil(
      async () => ({ value: 0 }),
      () => low.waits.length === 3,
      {
        backoff: { baseMs: 100, capMs: 1000, random: () => 0 },
        deadlineMs: 60_000,
        sleep: low.wait,
        now: low.now,
      },
    );
    expect(low.waits).toEqual([1, 1, 1]);
  });

  it('stops at the hard deadline, never waiting past it, and says what it saw last', async () => {
    const v = virtualTime();
    const p = pollUntil(
      async () => ({ value: { status: 'PROGRESS' } }),
      () => false,
      {
        backoff: { baseMs: 1000, capMs: 8000, random: () => 1 },
        deadlineMs: 10_000,
        sleep: v.wait,
        now: v.now,
        what: 'task t1',
      },
    );
    await expect(p).rejects.toThrow(PollDeadlineExceeded);
    await expect(p).rejects.toThrow(/task t1.*PROGRESS/);
    expect(v.waits.reduce((a, b) => a + b, 0)).toBe(10_000);
  });
});

describe('RateLimiter', () => {
  it('spaces requests and holds them for Retry-After', async () => {
    const v = virtualTime();
    const rl = new RateLimiter(2, v.now, v.wait);
    await rl.take();
    await rl.take();
    expect(v.waits).toEqual([500]);
    expect(rl.backOff('3')).toBe(3000);
    await rl.take();
    expect(v.waits.at(-1)).toBe(3000);
    expect(retryAfterMs(new Date(10_000).toUTCString(), 4000)).toBe(6000);
    expect(retryAfterMs('soon', 0)).toBeUndefined();
  });
});

describe("violations (the suite's conformance check)", () => {
  const json = { 'content-type': 'application/json' };
  it('names a missing required body field', () => {
    const v = violations('createUserToken', {
      status: 200,
      headers: json,
      text: JSON.stringify({ token_type: 'bearer', expires_in: 5 }),
    });
    expect(v.join('\n')).toContain('/access_token');
  });
  it('refuses an undeclared status and a body on a body-less response', () => {
    expect(violations('getDeviceBinding', { status: 418, headers: {}, text: '' })[0]).toMatch(
      /418 is not declared/,
    );
    expect(violations('getDeviceBinding', { status: 404, headers: json, text: '{"detail":"x"}' })[0]).toMatch(
      /declares no body/,
    );
    expect(violations('getDeviceBinding', { status: 404, headers: {}, text: '' })).toEqual([]);
  });
  it('checks declared headers and S3 XML error documents', () => {
    expect(violations('uploadPart', { status: 200, headers: {}, text: '' })).toEqual([
      'uploadPart 200: header ETag is required but missing',
    ]);
    expect(violations('uploadPart', { status: 200, headers: { etag: 'abc' }, text: '' })[0]).toMatch(
      /ETag must match/,
    );
    const xml = { 'content-type': 'application/xml' };
    expect(
      violations('uploadPart', {
        status: 403,
        headers: xml,
        text: '<Error><Code>Nope</Code><Message>m</Message></Error>',
      })[0],
    ).toMatch(/Code must be one of/);
    expect(
      violations('uploadPart', {
        status: 403,
        headers: xml,
        text: '<Error><Code>AccessDenied</Code></Error>',
      })[0],
    ).toMatch(/Message is required/);
    expect(
      violations('getPartnerToken', { status: 429, headers: json, text: '{"detail":"RATE_LIMITED"}' })[0],
    ).toMatch(/Retry-After is required/);
  });
});

describe('redact and settings', () => {
  it('masks credentials, JWTs, signatures and registered secrets', () => {
    registerSecret('sk-very-secret');
    const text = redact(
      'Authorization: Bearer abc.def.ghi X-Amz-Signature=abcdef0123 eyJhbGciOi.eyJzdWIi.c2ln sk-very-secret',
    );
    expect(text).not.toMatch(/abc\.def|abcdef0123|eyJzdWIi|sk-very-secret/);
  });
  it('masks a failed assertion about a secret before vitest prints its diff or the JUnit report', () => {
    const token = 'rt_contract-refresh-0123456789abcdef';
    registerSecret(token);
    let thrown: unknown;
    try {
      expect({ token_type: 'bearer', refresh_token: token }).toEqual({ token_type: 'mac' });
    } catch (e) {
      thrown = e;
    }
    const reported = (e: unknown) => {
      const err = e as Error & { actual?: unknown; expected?: unknown };
      return JSON.stringify([err.message, err.stack, err.actual, err.expected]);
    };
    // vitest builds its diff from `actual`: the raw error holds the token in clear.
    expect(reported(thrown)).toContain(token);
    const safe = redactError(thrown);
    expect(safe).toBe(thrown);
    expect(reported(safe)).not.toContain(token);
    expect((safe as { actual: unknown }).actual).toEqual({
      token_type: 'bearer',
      refresh_token: '[redacted]',
    });
  });
  it('names every missing live setting, and the url target needs a base URL', () => {
    expect(() => liveSettings({})).toThrow(ContractSettingsError);
    expect(() => liveSettings({ CONTRACT_REGION: 'us', PARTNER_CLIENT_ID: 'c' })).toThrow(
      /PARTNER_SECRET_KEY, PARTNER_API_KEY, PARTNER_USER_ID/,
    );
    const s = liveSettings({
      CONTRACT_REGION: 'jp',
      PARTNER_CLIENT_ID: 'c',
      PARTNER_SECRET_KEY: 's',
      PARTNER_API_KEY: 'k',
      PARTNER_USER_ID: 'user-01',
    });
    expect(s.base).toBe('https://platform-jp.plaud.ai/developer/api');
    expect(s.allowMutations).toBe(false);
    expect(() => urlSettings({})).toThrow(/CONTRACT_BASE_URL/);
    expect(urlSettings({ CONTRACT_BASE_URL: 'http://h:1/jp/developer/api/' }).root).toBe('http://h:1');
  });

  it('takes the admin token from PARTNER_SIM_ADMIN_TOKEN, as serve and compare do, CONTRACT_ADMIN_TOKEN first', () => {
    const base = { CONTRACT_BASE_URL: 'http://h:1' };
    expect(urlSettings({ ...base, PARTNER_SIM_ADMIN_TOKEN: 'shared' }).adminToken).toBe('shared');
    expect(
      urlSettings({ ...base, PARTNER_SIM_ADMIN_TOKEN: 'shared', CONTRACT_ADMIN_TOKEN: 'own' }).adminToken,
    ).toBe('own');
    expect(urlSettings(base).adminToken).toBeUndefined();
  });
});

describe('coverage', () => {
  it('every operation of openapi.yaml is exercised by some contract scenario', () => {
    const dirs = ['contracts', 'contracts/lib'];
    const source = dirs
      .flatMap((d) =>
        readdirSync(fromRoot(d))
          .filter((f) => f.endsWith('.ts'))
          .map((f) => readFileSync(fromRoot(d, f), 'utf8')),
      )
      .join('\n');
    const missing = [...apiSpec().operations.keys()].filter((id) => !source.includes(`'${id}'`));
    expect(missing).toEqual([]);
  });
});
