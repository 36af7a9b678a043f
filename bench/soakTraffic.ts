import { randomBytes } from 'node:crypto';
import { Agent, request } from 'node:http';
import { md5hex } from '../server/client/steps.js';

/** Apps the soak drives (fixture apps of the US region). */
export const SOAK_APPS = [
  { client_id: 'demo-client-us', secret_key: 'demo-secret-us-0000', api_key: 'demo-api-key-us-0000' },
  { client_id: 'other-partner-us', secret_key: 'other-secret-us-0000', api_key: 'other-api-key-us-0000' },
] as const;
export type SoakApp = (typeof SOAK_APPS)[number];

const SERIAL = '8810B30227290003';

interface Answer {
  status: number;
  text: string;
  headers: Record<string, string | string[] | undefined>;
}

/** Counts of what the traffic did; `errors` keeps the first few failures for the report. */
export interface SoakStats {
  requests: number;
  errors: number;
  samples: string[];
}

/**
 * Mixed partner traffic over one keep-alive agent: token exchange and user token, binding
 * GET, presign + part PUT + complete, transcription submit + get. Every answer must be the
 * documented success; anything else (or a socket error) is an error.
 */
export class SoakTraffic {
  readonly stats: SoakStats = { requests: 0, errors: 0, samples: [] };
  private readonly agent: Agent;
  private readonly userTokens = new Map<string, string>();

  constructor(
    private readonly base: string,
    connections: number,
  ) {
    // An idle socket is dropped after 4 s, before the server's 5 s keep-alive timeout closes
    // it: otherwise a request sent as the server closes it fails with ECONNRESET.
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

  /** One flow of the kind `n` picks, as `app`. Resolves once its requests are answered. */
  async flow(n: number, app: SoakApp): Promise<void> {
    try {
      const user = this.userTokens.get(app.client_id) ?? (await this.tokens(app));
      switch (n % 4) {
        case 0:
          await this.tokens(app);
          break;
        case 1:
          await this.expect('binding', 'GET', `/open/partner/sdk/binding?type=notepro&sn=${SERIAL}`, user);
          break;
        case 2:
          await this.upload(user);
          break;
        default:
          await this.transcribe(app, user, n % 8 === 3);
      }
    } catch (e) {
      this.fail(`flow ${n % 4}: ${(e as Error).message}`);
    }
  }

  private async tokens(app: SoakApp): Promise<string> {
    const basic = Buffer.from(`${app.client_id}:${app.secret_key}`).toString('base64');
    const p = await this.expect('token', 'POST', '/oauth/partner/access-token', `Basic ${basic}`, '');
    const u = await this.expect('user token', 'POST', '/open/partner/users/access-token', p.access_token, {
      user_id: 'soak-user-0001',
    });
    this.userTokens.set(app.client_id, u.access_token);
    return u.access_token;
  }

  private async upload(user: string): Promise<string> {
    const bytes = randomBytes(1024);
    const s = await this.expect(
      'presign',
      'POST',
      '/open/partner/files/upload/generate-presigned-urls',
      user,
      {
        filesize: bytes.length,
        filetype: 'mp3',
      },
    );
    const put = await this.send('PUT', s.Parts[0].PresignedUrl, {}, bytes);
    if (put.status !== 200) throw new Error(`part PUT: ${put.status} ${put.text.slice(0, 200)}`);
    const done = await this.expect('complete', 'POST', '/open/partner/files/upload/complete-upload', user, {
      file_id: s.FileId,
      upload_id: s.UploadId,
      filetype: 'mp3',
      file_md5: md5hex(bytes),
      part_list: [{ PartNumber: 1, ETag: String(put.headers.etag) }],
    });
    return done.DownloadUrl;
  }

  /** Submit (an external URL, or a file just uploaded) and read the task back. */
  private async transcribe(app: SoakApp, user: string, ownFile: boolean): Promise<void> {
    const file_url = ownFile ? await this.upload(user) : `https://example.com/soak/${Math.random()}.mp3`;
    const keys = { 'x-client-id': app.client_id, 'x-client-api-key': app.api_key };
    const path = '/open/partner/ai/transcriptions/';
    const sub = await this.send(
      'POST',
      this.base + path,
      { ...keys, 'content-type': 'application/json' },
      JSON.stringify({ file_url }),
    );
    if (sub.status !== 200) throw new Error(`submit: ${sub.status} ${sub.text.slice(0, 200)}`);
    const id = (JSON.parse(sub.text) as { transcription_id: string }).transcription_id;
    const got = await this.send('GET', `${this.base}${path.slice(0, -1)}/${id}`, keys);
    if (got.status !== 200) throw new Error(`get task: ${got.status} ${got.text.slice(0, 200)}`);
  }

  /** A partner API call that must answer 200 JSON; resolves to the parsed body. */
  private async expect(
    what: string,
    method: string,
    path: string,
    auth: string,
    json?: unknown,
    // biome-ignore lint/suspicious/noExplicitAny: bodies are read as JSON
  ): Promise<any> {
    const headers: Record<string, string> = {
      authorization: auth.startsWith('Basic ') ? auth : `Bearer ${auth}`,
    };
    let body: string | undefined;
    if (json === '') {
      headers['content-type'] = 'application/x-www-form-urlencoded';
      body = '';
    } else if (json !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(json);
    }
    const r = await this.send(method, this.base + path, headers, body);
    if (r.status !== 200) throw new Error(`${what}: ${r.status} ${r.text.slice(0, 200)}`);
    return JSON.parse(r.text);
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
            headers: res.headers,
          }),
        );
        res.on('error', reject);
      });
      req.on('timeout', () => req.destroy(new Error(`${method} ${url}: no answer in 30 s`)));
      req.on('error', reject);
      req.end(body);
    });
  }

  private fail(message: string): void {
    this.stats.errors++;
    if (this.stats.samples.length < 5)
      this.stats.samples.push(`${message} at ${Math.round(performance.now())} ms`);
  }
}
