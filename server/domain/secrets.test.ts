import { describe, expect, it } from 'vitest';
import { putPart, startUpload } from '../client/steps.js';
import { uploadAll } from '../client/upload.js';
import { Random } from '../core/random.js';
import { MemoryStore } from '../store/memoryStore.js';
import { bearer, DEMO_US, http, userToken } from '../testing/http.js';
import { useTestServers } from '../testing/useTestServers.js';
import { Instance, type InstanceRecord } from './instance.js';
import { signJwt, verifyJwt } from './jwt.js';

const servers = useTestServers();

/** The same URL, asked of another instance. */
const on = (url: string, base: string): string => {
  const u = new URL(url);
  const b = new URL(base);
  u.host = b.host;
  return u.toString();
};

describe('secrets of an instance without --seed', () => {
  it('come from the CSPRNG: two default instances never accept each other’s tokens or URLs', async () => {
    const a = await servers.start({ seed: undefined });
    const b = await servers.start({ seed: undefined });
    expect(a.config.seed).toBeUndefined();
    const ta = await userToken(a.api, DEMO_US);
    const tb = await userToken(b.api, DEMO_US);
    // Each instance accepts its own token and refuses the other's.
    const mint = (api: string, partner: string) =>
      http('POST', `${api}/open/partner/users/access-token`, {
        headers: bearer(partner),
        json: { user_id: 'u-000001' },
      });
    expect((await mint(a.api, ta.partner)).status).toBe(200);
    const cross = await mint(b.api, ta.partner);
    expect(cross.status).toBe(401);
    expect(cross.body.detail).toBe('INVALID_TOKEN');
    expect((await mint(a.api, tb.partner)).status).toBe(401);

    // A part URL and a DownloadUrl of A, presented to B, fail on their signature.
    const session = await startUpload(a.api, ta.user, 4);
    const part = await putPart(on(session.Parts[0]!.PresignedUrl, b.url), new Uint8Array([1, 2, 3, 4]));
    expect(part.status).toBe(403);
    expect(part.text).toContain('SignatureDoesNotMatch');
    const file = await uploadAll(a.api, ta.user, 4, () => new Uint8Array([5, 6, 7, 8]));
    expect((await http('GET', file.DownloadUrl)).status).toBe(200);
    const foreign = await http('GET', on(file.DownloadUrl, b.url));
    expect(foreign.status).toBe(403);
    expect(foreign.text).toContain('SignatureDoesNotMatch');
  });

  it('generates app credentials and ids nobody can repeat, while an explicit --seed repeats them', async () => {
    const created = async (seed: string | undefined) => {
      const s = await servers.start({ seed });
      return (await http('POST', `${s.admin}/apps`, { json: {} })).body;
    };
    const [r1, r2] = [await created(undefined), await created(undefined)];
    expect(r1.client_id).not.toBe(r2.client_id);
    expect(r1.secret_key).not.toBe(r2.secret_key);
    const [s1, s2] = [await created('fixed'), await created('fixed')];
    expect(s1).toEqual(s2);
    // The fixture apps keep their documented demo credentials either way.
    const a = await servers.start({ seed: undefined });
    const demo = (await http('GET', `${a.admin}/apps`)).body.find(
      (x: { client_id: string }) => x.client_id === DEMO_US.client_id,
    );
    expect(demo.secret_key).toBe(DEMO_US.secret_key);
  });

  it('Random without a seed draws fresh bytes per instance and per fork', () => {
    const a = new Random(undefined);
    const b = new Random(undefined);
    expect(a.secure && !new Random('x').secure).toBe(true);
    expect(a.hex(32)).not.toBe(b.hex(32));
    expect(a.fork('apps').token()).not.toBe(a.fork('apps').token());
    expect(new Random('x').fork('apps').hex(8)).toBe(new Random('x').fork('apps').hex(8));
  });
});

describe('the master secret of a data folder', () => {
  const secretOf = (i: Instance) => i.secret('jwt').toString('hex');

  it('is random and kept across restarts, with or without a later --seed', async () => {
    const store = new MemoryStore();
    const first = await Instance.boot(store, new Random(undefined));
    expect(store.mirrored<InstanceRecord>('meta').peek('instance')?.secretSource).toBe('random');
    expect(secretOf(await Instance.boot(store, new Random(undefined)))).toBe(secretOf(first));
    expect(secretOf(await Instance.boot(store, new Random('later-seed')))).toBe(secretOf(first));
    expect(secretOf(await Instance.boot(new MemoryStore(), new Random(undefined)))).not.toBe(secretOf(first));
  });

  it('is replaced, with a warning, when it came from a seed and the folder starts without one', async () => {
    for (const legacy of [false, true]) {
      const store = new MemoryStore();
      // Kept as text: an Instance follows its stored record, so a later boot on this store changes it.
      const seeded = secretOf(await Instance.boot(store, new Random('partner-sim/boot')));
      if (legacy) {
        // Written before secrets were random: no secretSource, always seed-derived.
        const meta = store.mirrored<InstanceRecord>('meta');
        const { secretSource: _s, ...old } = meta.peek('instance')!;
        await meta.put('instance', old);
      }
      expect(secretOf(await Instance.boot(store, new Random('partner-sim/boot')))).toBe(seeded);
      const warnings: string[] = [];
      const now = await Instance.boot(store, new Random(undefined), (m) => warnings.push(m));
      expect(secretOf(now)).not.toBe(seeded);
      expect(warnings.join('\n')).toMatch(/derived from a seed \(guessable\)/);
    }
  });
});

describe('the master secret of a shared store', () => {
  /** A MemoryStore standing for PostgreSQL: other running instances use the same records. */
  const sharedStore = () => Object.assign(new MemoryStore(), { shared: true });
  const secretOf = (i: Instance) => i.secret('jwt').toString('hex');

  it('is made once by concurrent first starts, and kept by every later one', async () => {
    const store = sharedStore();
    const booted = await Promise.all([1, 2, 3].map(() => Instance.boot(store, new Random(undefined))));
    expect(new Set(booted.map(secretOf)).size).toBe(1);
    expect(store.mirrored<InstanceRecord>('meta').peek('instance')?.generation).toBe(2);
  });

  it('is kept, with a warning, when seed-derived and a start without a seed joins', async () => {
    const store = sharedStore();
    const seeded = secretOf(await Instance.boot(store, new Random('partner-sim/boot')));
    const warnings: string[] = [];
    const joined = await Instance.boot(store, new Random(undefined), (m) => warnings.push(m));
    expect(secretOf(joined)).toBe(seeded);
    expect(warnings.join('\n')).toMatch(
      /derived from a seed \(guessable\); it is kept because other instances sharing this store/,
    );
  });
});

describe('JWT signatures', () => {
  const secret = Buffer.alloc(32, 7);
  const token = signJwt({ sub: 's', iat: 1, exp: 2 }, secret);
  const [h, p, sig] = token.split('.') as [string, string, string];
  const variants = {
    'appended *': `${h}.${p}.${sig}*`,
    'appended ==': `${h}.${p}.${sig}==`,
    'appended =': `${h}.${p}.${sig}=`,
    'inserted *': `${h}.${p}.${sig.slice(0, 10)}*${sig.slice(10)}`,
    'inserted space': `${h}.${p}.${sig.slice(0, 10)} ${sig.slice(10)}`,
    'standard base64 alphabet': `${h}.${p}.${sig.replaceAll('-', '+').replaceAll('_', '/')}`,
    // The last of 43 characters carries 2 unused bits: another letter can decode the same.
    'non-canonical last character': `${h}.${p}.${sig.slice(0, -1)}${String.fromCharCode(sig.charCodeAt(42) ^ 1)}`,
  };

  it('are accepted only in canonical base64url', () => {
    expect(verifyJwt(token, secret)).toMatchObject({ sub: 's' });
    for (const [name, t] of Object.entries(variants)) expect(verifyJwt(t, secret), name).toBeUndefined();
  });

  it('in any other spelling are 401 INVALID_TOKEN over HTTP', async () => {
    const s = await servers.start();
    const { partner } = await userToken(s.api, DEMO_US);
    const [ph, pp, ps] = partner.split('.') as [string, string, string];
    const mint = (t: string) =>
      http('POST', `${s.api}/open/partner/users/access-token`, {
        headers: bearer(t),
        json: { user_id: 'u-000001' },
      });
    expect((await mint(partner)).status).toBe(200);
    for (const t of [`${partner}*`, `${partner}==`, `${ph}.${pp}.${ps.slice(0, 5)}*${ps.slice(5)}`]) {
      const r = await mint(t);
      expect(r.status, t).toBe(401);
      expect(r.body.detail, t).toBe('INVALID_TOKEN');
    }
  });
});
