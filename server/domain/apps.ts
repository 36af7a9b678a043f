import { timingSafeEqual } from 'node:crypto';
import { SimError } from '../core/errors.js';
import type { Random } from '../core/random.js';
import { regionNotEnabled } from '../core/regions.js';
import { EU_API, JP_API, SG_API, US_API } from '../http/apiPrefixes.js';
import type { components } from '../spec/admin-types.js';
import { type Page, type PageQuery, recordPage } from '../store/recordPage.js';
import type { MirroredCollection, Store } from '../store/store.js';

type AdminSchemas = components['schemas'];

export type Region = AdminSchemas['Region'];

/**
 * A partner application as issued in the developer portal, plus its quirk switches
 * (result_shape, error_shape, etag_quotes, strict_params, transcriber): the control API's PartnerApp, as documented in
 * server/admin.openapi.yaml.
 */
export type PartnerApp = AdminSchemas['PartnerApp'];

export type NewApp = Partial<PartnerApp>;

/** What an unknown client id's key is compared with (never equal: no app has an empty key). */
const NO_KEY = '';

/** The partner API base path of each region. */
const REGION_API: Record<Region, string> = { us: US_API, jp: JP_API, eu: EU_API, sg: SG_API };

/** Compare secrets in constant time so a timing probe cannot guess them. */
export function sameSecret(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/**
 * The registry of partner apps. Credentials are per region, as on the live service: an app
 * exists in exactly one region and its credentials fail in the other.
 */
export class AppRegistry {
  /** Mirrored: every request authenticates against it. */
  private readonly apps: MirroredCollection<PartnerApp>;
  private readonly incarnations: Random;

  constructor(
    store: Store,
    private readonly random: Random,
    /** `--regions`: an app in another region is refused (live does not serve it yet). */
    private readonly regions: readonly Region[],
  ) {
    this.apps = store.mirrored<PartnerApp>('apps');
    this.incarnations = random.fork('incarnations');
  }

  get(clientId: string): PartnerApp | undefined {
    return this.apps.peek(clientId);
  }

  list(): PartnerApp[] {
    return [...this.apps.peekAll()];
  }

  /** One page of the apps in `client_id` order (the control API's listing). */
  page(q: PageQuery): Promise<Page<PartnerApp>> {
    if (q.only === undefined) return recordPage(this.apps, (a) => a.client_id, q);
    // One app by its id: no index needed (the id is the key).
    const app = this.apps.peek(q.only.value);
    return Promise.resolve({ items: app && (q.after === undefined || app.client_id > q.after) ? [app] : [] });
  }

  async create(input: NewApp): Promise<PartnerApp> {
    const client_id = input.client_id ?? `client_${this.random.hex(8)}`;
    const exists = () => SimError.conflict('APP_EXISTS', `An app with client_id ${client_id} exists`);
    if (this.apps.peek(client_id)) throw exists();
    const region = input.region ?? 'us';
    if (!this.regions.includes(region))
      throw SimError.badRequest('REGION_NOT_ENABLED', regionNotEnabled(this.regions, region));
    const app: PartnerApp = {
      client_id,
      secret_key: input.secret_key ?? `sk_${this.random.token(24)}`,
      api_key: input.api_key ?? `ak_${this.random.token(24)}`,
      region,
      // No default: an app without its own switch follows --result-shape.
      ...(input.result_shape ? { result_shape: input.result_shape } : {}),
      error_shape: input.error_shape ?? 'spec',
      etag_quotes: input.etag_quotes ?? 'keep',
      strict_params: input.strict_params ?? false,
      // No default: an app without its own engine follows --transcriber.
      ...(input.transcriber ? { transcriber: input.transcriber } : {}),
      // Its own stream: drawing it does not shift the ids and keys a seeded run generates.
      incarnation: this.incarnations.hex(8),
    };
    // insert: of two instances creating the same id at once, one gets the 409.
    if (!(await this.apps.insert(client_id, app))) throw exists();
    return app;
  }

  /** Forget the app; resolves to whether it existed. What it owned is removed by the caller. */
  remove(clientId: string): Promise<boolean> {
    return this.apps.delete(clientId);
  }

  /**
   * Basic credentials → the app, or 401 CLIENT_NOT_FOUND: one answer for an unknown id and a
   * wrong secret. The right secret of an app of the other region also answers 401 (as live),
   * but, the caller having proved the credential, says where the app lives.
   */
  authenticateSecret(clientId: string, secret: string, region: Region): PartnerApp {
    const app = this.apps.peek(clientId);
    const keyOk = sameSecret(app ? app.secret_key : NO_KEY, secret);
    if (!app || !keyOk) {
      throw SimError.unauthorized(
        'CLIENT_NOT_FOUND',
        'Unknown client id or wrong secret key for this region',
      );
    }
    if (app.region !== region) throw otherRegion(app.region, 'secret key', 'CLIENT_NOT_FOUND', region);
    return app;
  }

  /**
   * X-Client-Id / X-Client-Api-Key → the app, or 401 CLIENT_NOT_FOUND. One answer (code,
   * message, and a key comparison either way) for an unknown id and a wrong key, as for Basic
   * credentials: the check must not tell which client ids exist. Only the right key of an app
   * of the other region hears where the app lives.
   */
  authenticateApiKey(clientId: string, apiKey: string, region: Region): PartnerApp {
    const app = this.apps.peek(clientId);
    // Compared even for an unknown id, so the time taken does not tell either.
    const keyOk = sameSecret(app ? app.api_key : NO_KEY, apiKey);
    if (!app || !keyOk) {
      throw SimError.unauthorized('CLIENT_NOT_FOUND', 'Unknown client id or wrong API key for this region');
    }
    if (app.region !== region) throw otherRegion(app.region, 'API key', 'CLIENT_NOT_FOUND', region);
    return app;
  }
}

/**
 * The 401 a proven credential of the other region gets: the live status and code, and a message
 * naming the region the app exists in and its base path.
 */
export function otherRegion(appRegion: Region, credential: string, code: string, asked: Region): SimError {
  return SimError.unauthorized(
    code,
    `This ${credential} is valid, but its app exists in the ${appRegion.toUpperCase()} region: ` +
      `send it to ${REGION_API[appRegion]} (this request went to the ${asked.toUpperCase()} API)`,
  );
}
