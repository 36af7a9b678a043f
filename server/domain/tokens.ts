import { createHash } from 'node:crypto';
import { BoundedMap } from '../core/boundedMap.js';
import { type ClockOf, epochSeconds, toIso } from '../core/clock.js';
import { SimError } from '../core/errors.js';
import { type Random, stableUuid } from '../core/random.js';
import { AppBound } from '../store/appBound.js';
import { PagedSweep } from '../store/pagedSweep.js';
import type { Collection, Store } from '../store/store.js';
import { type AppRegistry, otherRegion, type PartnerApp, type Region } from './apps.js';
import { type JwtClaims, signJwt, verifyJwt } from './jwt.js';

export type TokenUse = 'partner' | 'user';

export interface TokenClaims extends JwtClaims {
  token_use: TokenUse;
  client_id: string;
  region: Region;
  /** `client_user_<uuid>` on user tokens; the client id on partner tokens. */
  sub: string;
  /** User tokens: the partner's own user id, as sent (public clients refuse a token without it). */
  user_id?: string;
  jti: string;
  /** The app's `incarnation` when the token was minted (absent on tokens of older apps). */
  app_inc?: string;
  /** Expiry on the app's clock, Unix seconds: what TOKEN_EXPIRED is judged by (absent on older tokens: `exp`). */
  app_exp?: number;
}

interface RefreshRecord {
  client_id: string;
  region: Region;
  exp_ms: number;
}

export interface TokenSettings {
  partnerTtlS: number;
  userTtlS: number;
  refreshTtlS: number;
  /** `--keep-per-app`: refresh tokens each app keeps valid, the newest (0: no bound). */
  keepPerApp?: number | undefined;
  /**
   * `--token-claims-clock`: `wall` (default) signs `iat`/`exp` on the real clock, so a client
   * that checks `exp` against its own clock accepts a token minted after its app's clock was
   * moved; `app` signs them on the app's clock. Expiry is judged on the app's clock either way
   * (`app_exp`).
   */
  claimsClock?: 'wall' | 'app' | undefined;
  /** The real clock (tests inject one). */
  realNow?: (() => number) | undefined;
}

/**
 * Tokens whose verified claims stay cached (a claims object and the token text, ~1 KiB each):
 * 10,000 in use at once is more than a fleet holds, and a token pushed out is verified again.
 */
const CACHE_LIMIT = 10_000;

/**
 * Partner and user tokens. Both are HS256 JWTs; the `token_use` claim tells them apart.
 * Verification is cached per token string (signature and JSON parsing happen once), while
 * expiry, region and app existence are checked on every use against the injected clock.
 * Refresh tokens are opaque, stored only as hashes, and work once.
 */
export class TokenService {
  private readonly cache = new BoundedMap<string, TokenClaims>(CACHE_LIMIT);
  /** sub is a pure function of (client, user_id); partners mint for the same users over and over. */
  private readonly subs = new BoundedMap<string, string>(CACHE_LIMIT);
  private readonly refresh: Collection<RefreshRecord>;
  private readonly sweeping: PagedSweep<RefreshRecord>;
  /**
   * Live says nothing of how many refresh tokens stay valid at once; a fleet that exchanges
   * without ever refreshing would otherwise keep every one for 30 days. The newest
   * `--keep-per-app` of each app stay; an older one answers INVALID_REFRESH_TOKEN, as a used one does.
   */
  readonly bound: AppBound<RefreshRecord>;

  constructor(
    store: Store,
    private readonly apps: AppRegistry,
    private readonly clockOf: ClockOf,
    private readonly random: Random,
    private readonly secret: Buffer,
    private readonly settings: TokenSettings,
  ) {
    this.refresh = store.collection<RefreshRecord>('refreshTokens');
    this.sweeping = new PagedSweep(this.refresh);
    this.bound = new AppBound({
      name: 'refresh tokens',
      collection: this.refresh,
      keep: settings.keepPerApp ?? 0,
      order: 'exp_ms',
      drop: (id) => this.refresh.delete(id),
    });
  }

  /** The stable account id of a partner's user: same (client, user_id), same id, forever. */
  static userSub(clientId: string, userId: string): string {
    return `client_user_${stableUuid('partner-sim-user', clientId, userId)}`;
  }

  /** `userSub`, remembered by this service (one cache per simulator, not per process). */
  private subOf(clientId: string, userId: string): string {
    const key = `${clientId}\u0000${userId}`;
    let sub = this.subs.get(key);
    if (!sub) {
      sub = TokenService.userSub(clientId, userId);
      this.subs.set(key, sub);
    }
    return sub;
  }

  private sign(
    use: TokenUse,
    app: { client_id: string; region: Region; incarnation?: string | undefined },
    sub: string,
    ttlS: number,
    extra: { user_id?: string } = {},
  ): string {
    const appNow = this.clockOf(app.client_id).now();
    const wall = (this.settings.claimsClock ?? 'wall') === 'wall';
    const iat = epochSeconds(wall ? (this.settings.realNow ?? Date.now)() : appNow);
    return signJwt(
      {
        token_use: use,
        client_id: app.client_id,
        region: app.region,
        sub,
        ...extra,
        iat,
        exp: iat + ttlS,
        app_exp: epochSeconds(appNow) + ttlS,
        jti: this.random.hex(8),
        ...(app.incarnation ? { app_inc: app.incarnation } : {}),
      },
      this.secret,
    );
  }

  async issuePartnerToken(app: PartnerApp) {
    const refresh_token = `rt_${this.random.token(32)}`;
    await this.refresh.put(hash(refresh_token), {
      client_id: app.client_id,
      region: app.region,
      exp_ms: this.clockOf(app.client_id).now() + this.settings.refreshTtlS * 1000,
    });
    this.bound.touch(app.client_id);
    return {
      access_token: this.sign('partner', app, app.client_id, this.settings.partnerTtlS),
      refresh_token,
      token_type: 'bearer' as const,
      expires_in: this.settings.partnerTtlS,
    };
  }

  /**
   * Exchange a refresh token (once) for a new partner token pair. `app` is the Basic caller;
   * without one (`--refresh-auth optional`, the quickstart's form field alone) the token's own
   * app, when the token is known in this region.
   */
  async refreshPartnerToken(caller: PartnerApp | undefined, refreshToken: string, region: Region) {
    const app = caller ?? (await this.ownerOf(refreshToken, region));
    const now = this.clockOf(app.client_id).now();
    // Use-once: the check and the delete are one update, so of two exchanges of one token
    // (two requests, two instances) exactly one succeeds.
    const valid = await this.refresh.update(hash(refreshToken), (rec) => {
      if (!rec || rec.client_id !== app.client_id || rec.exp_ms <= now) return { result: false };
      return { next: null, result: true };
    });
    if (!valid) throw invalidRefresh();
    return this.issuePartnerToken(app);
  }

  private async ownerOf(refreshToken: string, region: Region): Promise<PartnerApp> {
    const rec = await this.refresh.get(hash(refreshToken));
    const app = rec?.region === region ? this.apps.get(rec.client_id) : undefined;
    if (!app) throw invalidRefresh();
    return app;
  }

  issueUserToken(partner: TokenClaims, userId: string, expiresIn: number | undefined) {
    const ttl = expiresIn ?? this.settings.userTtlS;
    const sub = this.subOf(partner.client_id, userId);
    // The partner token was checked against the app's incarnation: the user token inherits it.
    const app = { client_id: partner.client_id, region: partner.region, incarnation: partner.app_inc };
    return {
      access_token: this.sign('user', app, sub, ttl, { user_id: userId }),
      token_type: 'bearer' as const,
      expires_in: ttl,
    };
  }

  /**
   * The claims of a bearer token presented in `region`, or a 401/403 SimError saying why not.
   * A token of the other region answers 401 CLIENT_USER_NOT_FOUND, as the live service does.
   */
  verify(token: string, region: Region, use: TokenUse): TokenClaims {
    let claims = this.cache.get(token);
    if (!claims) {
      const raw = verifyJwt(token, this.secret) as TokenClaims | undefined;
      if (!raw || (raw.token_use !== 'partner' && raw.token_use !== 'user')) {
        throw SimError.unauthorized('INVALID_TOKEN', 'Token is malformed or its signature does not verify');
      }
      claims = raw;
      this.cache.set(token, claims);
    }
    const now = this.clockOf(claims.client_id).now();
    if (appExp(claims) * 1000 <= now) throw expired(claims, now);
    // The signature proved the token: saying where its app lives tells nothing to a prober.
    if (claims.region !== region)
      throw otherRegion(claims.region, `${claims.token_use} token`, 'CLIENT_USER_NOT_FOUND', region);
    // Minted for this app as it is now: not for a deleted app, nor for an earlier app that
    // had the same client_id (an app created before incarnations existed has none).
    const app = this.apps.get(claims.client_id);
    if (!app || (app.incarnation ?? undefined) !== claims.app_inc) {
      throw SimError.unauthorized(
        'CLIENT_USER_NOT_FOUND',
        'Token was issued to an app that no longer exists',
      );
    }
    if (claims.token_use !== use) {
      throw SimError.forbidden(
        'WRONG_TOKEN_KIND',
        `This operation needs a ${use} token, got a ${claims.token_use} token`,
      );
    }
    return claims;
  }

  /**
   * Refresh tokens of one page (PagedSweep) expired on their app's clock removed (the
   * background housekeeper's work; an expired one is refused anyway). Resolves to how many went.
   */
  sweepExpired(budget: number): Promise<number> {
    return this.sweeping.run(
      budget,
      async (r, id) => r.exp_ms <= this.clockOf(r.client_id).now() && this.refresh.delete(id),
    );
  }

  /** The expired-token sweep has more tokens to look at this round. */
  get sweepBehind(): boolean {
    return this.sweeping.more;
  }

  /** Drop refresh tokens of one app (per-app reset) — access tokens simply stay valid. */
  async resetApp(clientId: string): Promise<void> {
    await this.refresh.deleteBy('client_id', clientId);
  }

  resetAll(): void {
    this.cache.clear();
  }
}

/**
 * TOKEN_EXPIRED with what a developer needs to act: which token, when it expired on the app's
 * clock (which the control API may have moved), and where a new one comes from.
 */
function expired(claims: TokenClaims, now: number): SimError {
  const at = `expired at ${toIso(appExp(claims) * 1000)} on the app's clock (now ${toIso(now)})`;
  const how =
    claims.token_use === 'partner'
      ? 'get a new one from POST /oauth/partner/access-token (Basic client_id:secret_key) or exchange the refresh token at POST /oauth/partner/access-token/refresh'
      : 'mint a new one with POST /open/partner/users/access-token (partner token)';
  return SimError.unauthorized('TOKEN_EXPIRED', `The ${claims.token_use} token ${at}: ${how}`);
}

/** When a token expires on its app's clock; tokens minted before `app_exp` existed: `exp`. */
const appExp = (claims: TokenClaims): number => claims.app_exp ?? claims.exp;

const hash = (s: string): string => createHash('sha256').update(s).digest('hex');

const invalidRefresh = () =>
  SimError.unauthorized(
    'INVALID_REFRESH_TOKEN',
    'Refresh token is unknown, used, expired or of another client',
  );
