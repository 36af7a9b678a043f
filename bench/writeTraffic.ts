import { randomBytes } from 'node:crypto';
import { Agent, request } from 'node:http';
import { md5hex } from '../server/client/steps.js';

/** One app the write soak drives: created through the control API at the start. */
export interface WriteApp {
  client_id: string;
  secret_key: string;
  api_key: string;
  /** A webhook endpoint of the app (test events go to it). */
  endpoint_id?: string;
  refresh?: string;
  user?: string;
}

interface Answer {
  status: number;
  text: string;
  etag?: string | undefined;
}

/** What each kind of flow did: counts and the first failures. */
export interface WriteStats {
  flows: number;
  requests: number;
  errors: number;
  samples: string[];
}

/** The flows, in the order `n % FLOWS.length` picks them: every one writes state. */
const FLOWS = [
  'token exchange (partner + user)',
  'refresh exchange',
  'upload',
  'upload + transcription',
  'sign + bind',
  'webhook test event',
  'phone (initSDK, then ended)',
] as const;

/**
 * Write traffic as a CI fleet makes it against one shared instance, without ever resetting
 * an app: every flow leaves records behind (refresh tokens, sessions and files with their
 * bytes, tasks, devices, deliveries, phones). Used by the write soak (writeSoak.ts): whatever
 * grows without bound under it shows as RSS and data-folder growth.
 */
export class WriteTraffic {
  readonly stats: WriteStats = { flows: 0, requests: 0, errors: 0, samples: [] };
  private readonly agent: Agent;
  private serial = 0;

  constructor(
    private readonly root: string,
    connections: number,
    private readonly adminToken?: string,
  ) {
    this.agent = new Agent({
      keepAlive: true,
      maxSockets: connections,
      maxFreeSockets: connections,
      timeout: 4000,
    });
  }

  close(): void {
    this.agent.destroy();
  }

  /** Create `n` apps (each with a webhook endpoint at `hookUrl`) through the control API. */
  async makeApps(n: number, prefix: string, hookUrl: string): Promise<WriteApp[]> {
    const apps: WriteApp[] = [];
    for (let i = 0; i < n; i++) {
      const app = await this.json<WriteApp>('POST', '/__admin/apps', this.admin(), {
        client_id: `${prefix}-${i}`,
      });
      const ep = await this.json<{ id: string }>(
        'POST',
        `/__admin/apps/${app.client_id}/webhooks`,
        this.admin(),
        { url: hookUrl, secret: 'soak-secret-0001' },
      );
      apps.push({ ...app, endpoint_id: ep.id });
    }
    return apps;
  }

  /** One flow of the kind `n` picks, as `app`; failures are counted, never thrown. */
  async flow(n: number, app: WriteApp): Promise<void> {
    const kind = n % FLOWS.length;
    try {
      if (!app.user || kind === 0) await this.tokens(app);
      else if (kind === 1) await this.refresh(app);
      else if (kind === 2) await this.upload(app.user);
      else if (kind === 3) await this.transcribe(app, await this.upload(app.user));
      else if (kind === 4) await this.bind(app.user);
      else if (kind === 5)
        await this.json(
          'POST',
          `/__admin/apps/${app.client_id}/webhooks/${app.endpoint_id}/test`,
          this.admin(),
          {},
        );
      else await this.phone(app.user);
      this.stats.flows++;
    } catch (e) {
      this.stats.errors++;
      if (this.stats.samples.length < 5) this.stats.samples.push(`${FLOWS[kind]}: ${(e as Error).message}`);
    }
  }

  /** initSDK, then the session ends as a job's does (phones are capped per app, not trimmed). */
  private async phone(user: string): Promise<void> {
    const auth = { authorization: `Bearer ${user}` };
    const p = await this.json<{ phone_id: string }>('POST', '/__device/phones', auth, {
      platform: 'android',
    });
    await this.json('DELETE', `/__device/phones/${p.phone_id}`, auth);
  }

  private admin(): Record<string, string> {
    return this.adminToken ? { authorization: `Bearer ${this.adminToken}` } : {};
  }

  private async tokens(app: WriteApp): Promise<void> {
    const basic = Buffer.from(`${app.client_id}:${app.secret_key}`).toString('base64');
    const form = { authorization: `Basic ${basic}`, 'content-type': 'application/x-www-form-urlencoded' };
    const p = await this.json<{ access_token: string; refresh_token: string }>(
      'POST',
      '/developer/api/oauth/partner/access-token',
      form,
      '',
    );
    app.refresh = p.refresh_token;
    const u = await this.json<{ access_token: string }>(
      'POST',
      '/developer/api/open/partner/users/access-token',
      { authorization: `Bearer ${p.access_token}` },
      { user_id: `soak-user-${this.serial++ % 50}` },
    );
    app.user = u.access_token;
  }

  private async refresh(app: WriteApp): Promise<void> {
    const basic = Buffer.from(`${app.client_id}:${app.secret_key}`).toString('base64');
    const p = await this.json<{ refresh_token: string }>(
      'POST',
      '/developer/api/oauth/partner/access-token/refresh',
      { authorization: `Basic ${basic}`, 'content-type': 'application/x-www-form-urlencoded' },
      `refresh_token=${encodeURIComponent(app.refresh ?? '')}`,
    );
    app.refresh = p.refresh_token;
  }

  /** presign + one part PUT + complete of 1 KiB; resolves to the DownloadUrl. */
  private async upload(user: string): Promise<string> {
    const bytes = randomBytes(1024);
    const auth = { authorization: `Bearer ${user}` };
    const s = await this.json<{ FileId: string; UploadId: string; Parts: { PresignedUrl: string }[] }>(
      'POST',
      '/developer/api/open/partner/files/upload/generate-presigned-urls',
      auth,
      { filesize: bytes.length, filetype: 'mp3' },
    );
    const put = await this.send('PUT', s.Parts[0]!.PresignedUrl, {}, bytes);
    if (put.status !== 200) throw new Error(`part PUT: ${put.status} ${put.text.slice(0, 200)}`);
    const done = await this.json<{ DownloadUrl: string }>(
      'POST',
      '/developer/api/open/partner/files/upload/complete-upload',
      auth,
      {
        file_id: s.FileId,
        upload_id: s.UploadId,
        filetype: 'mp3',
        file_md5: md5hex(bytes),
        part_list: [{ PartNumber: 1, ETag: put.etag }],
      },
    );
    return done.DownloadUrl;
  }

  private async transcribe(app: WriteApp, file_url: string): Promise<void> {
    const keys = { 'x-client-id': app.client_id, 'x-client-api-key': app.api_key };
    const path = '/developer/api/open/partner/ai/transcriptions/';
    const sub = await this.json<{ transcription_id: string }>('POST', path, keys, { file_url });
    await this.json('GET', `${path}${sub.transcription_id}`, keys);
  }

  /** sn-sign then bind of a serial never seen before (devices are one world, shared by apps). */
  private async bind(user: string): Promise<void> {
    const auth = { authorization: `Bearer ${user}` };
    const ref = {
      type: 'notepro',
      sn: `881SOAK${(this.serial++).toString(36).toUpperCase().padStart(8, '0')}`,
    };
    await this.json('POST', '/developer/api/open/partner/sdk/sn-sign', auth, ref);
    await this.json('POST', '/developer/api/open/partner/sdk/bind', auth, ref);
  }

  /** A call that must answer 2xx; resolves to its parsed JSON body (undefined when empty). */
  private async json<T = unknown>(
    method: string,
    path: string,
    headers: Record<string, string>,
    body?: unknown,
  ): Promise<T> {
    const text = typeof body === 'string' ? body : body === undefined ? undefined : JSON.stringify(body);
    const h =
      typeof body === 'string' || body === undefined
        ? headers
        : { 'content-type': 'application/json', ...headers };
    const r = await this.send(method, this.root + path, h, text);
    if (r.status < 200 || r.status > 299)
      throw new Error(`${method} ${path}: ${r.status} ${r.text.slice(0, 200)}`);
    return (r.text ? JSON.parse(r.text) : undefined) as T;
  }

  private send(
    method: string,
    url: string,
    headers: Record<string, string>,
    body?: string | Buffer,
  ): Promise<Answer> {
    this.stats.requests++;
    return new Promise((resolve, reject) => {
      const req = request(url, { method, headers, agent: this.agent, timeout: 30_000 }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            text: Buffer.concat(chunks).toString(),
            etag: res.headers.etag,
          }),
        );
        res.on('error', reject);
      });
      req.on('timeout', () => req.destroy(new Error(`${method} ${url}: no answer in 30 s`)));
      req.on('error', reject);
      req.end(body);
    });
  }
}
