import { type AudioBytes, joinedMd5 } from './audio.js';
import type { Carry } from './carry.js';
import { ReplayCredentials } from './credentials.js';
import type { HarEntry } from './har.js';

/** Headers the replay never copies: framing, the recorder's host, and its encoding choice. */
const DROPPED = new Set([
  'host',
  'content-length',
  'connection',
  'keep-alive',
  'transfer-encoding',
  'accept-encoding',
  'expect',
  'te',
  'upgrade',
]);

export interface ReplayApp {
  client_id: string;
  secret_key: string;
  api_key: string;
}

export interface ReplayRequest {
  url: URL;
  method: string;
  headers: Record<string, string>;
  body?: Buffer | string;
}

export const parseJson = (text: string | undefined): unknown => {
  try {
    return text === undefined ? undefined : JSON.parse(text);
  } catch {
    return undefined;
  }
};

/**
 * A recorded request as the target gets it: on the target's root, with the recording's
 * credentials as the replay app's good or wrong ones (credentials.ts), every value learnt so
 * far carried in, and bytes for bodies recorded only as length and MD5 (an upload's
 * `file_md5` recomputed when a stand-in was sent).
 */
export class RequestBuilder {
  private readonly credentials: ReplayCredentials;
  /** The largest part recorded: the part size, to find a part's bytes in a known file. */
  private readonly chunk: number;
  /** Part bytes sent per upload, and whether any was a stand-in. */
  private readonly uploads = new Map<string, { parts: Map<number, Buffer>; standIn: boolean }>();

  constructor(
    private readonly root: string,
    app: ReplayApp,
    private readonly carry: Carry,
    private readonly audio: AudioBytes,
    entries: HarEntry[],
    recordedApp?: string,
  ) {
    this.credentials = new ReplayCredentials(app, entries, recordedApp, carry);
    this.chunk = Math.max(
      1,
      ...entries.map((e) => (e.request.postData?._md5 ? (e.request.postData._size ?? 0) : 0)),
    );
  }

  async build(entry: HarEntry): Promise<ReplayRequest> {
    const { carry } = this;
    const recorded = new URL(entry.request.url);
    const url = new URL(
      carry.whole(entry.request.url) ?? this.root + carry.apply(recorded.pathname + recorded.search),
    );
    const headers: Record<string, string> = {};
    for (const { name, value } of entry.request.headers) {
      const key = name.toLowerCase();
      if (DROPPED.has(key) || key.startsWith(':')) continue;
      headers[key] = this.credentials.header(key, value) ?? carry.apply(value);
    }
    const method = entry.request.method.toUpperCase();
    const body = method === 'GET' || method === 'HEAD' ? undefined : await this.body(entry, url);
    return { url, method, headers, ...(body === undefined ? {} : { body }) };
  }

  private async body(entry: HarEntry, url: URL): Promise<Buffer | string | undefined> {
    const post = entry.request.postData;
    if (post?._md5 !== undefined) {
      const part = Number(url.searchParams.get('partNumber') ?? 1) || 1;
      const got = await this.audio.bytes(post._size ?? 0, post._md5, part, this.chunk);
      const id = url.searchParams.get('uploadId') ?? '';
      const upload = this.uploads.get(id) ?? { parts: new Map(), standIn: false };
      upload.parts.set(part, got.body);
      upload.standIn ||= !got.real;
      this.uploads.set(id, upload);
      return got.body;
    }
    if (!post?.text) return undefined;
    const text = this.carry.apply(post.text);
    const json = parseJson(text) as { upload_id?: string; file_md5?: string } | undefined;
    const upload = json?.upload_id ? this.uploads.get(json.upload_id) : undefined;
    return json?.file_md5 && upload?.standIn
      ? JSON.stringify({ ...json, file_md5: joinedMd5(upload.parts) })
      : text;
  }
}
