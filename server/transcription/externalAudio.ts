import { createHash, randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { extname, join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import {
  type AddressCheck,
  AddressRefused,
  checkHost,
  guardedLookup,
  isPrivateAddress,
} from '../core/addressGuard.js';
import { lazyHttps } from '../core/lazyHttps.js';

/**
 * Fetching a `file_url` outside the simulator's storage (`--fetch-external-audio`, off by
 * default): http(s) only, at most MAX_FETCH bytes within FETCH_TIMEOUT_MS, at most 3
 * redirects, and never to a private, loopback or link-local address unless
 * `--fetch-allow-private`. The host is resolved once per connection, every address checked,
 * and the connection made to the checked address (no second resolution that could differ).
 */
const MAX_FETCH = 200 * 1024 * 1024;
const FETCH_TIMEOUT_MS = 60_000;
const MAX_REDIRECTS = 3;

class FetchError extends Error {
  override readonly name = 'FetchError';
}

export interface FetchedAudio {
  path: string;
  md5: string;
  size: number;
  filetype: string;
}

export interface FetchOptions {
  allowPrivate: boolean;
  maxBytes?: number;
  timeoutMs?: number;
}

/** The fetcher's rule: no private, loopback or link-local address unless allowed. */
const fetchCheck =
  (allowPrivate: boolean): AddressCheck =>
  (address) =>
    !allowPrivate && isPrivateAddress(address) ? 'a private address (not fetched)' : undefined;

function fileTypeOf(url: URL): string {
  return (
    extname(url.pathname)
      .slice(1)
      .toLowerCase()
      .replace(/[^a-z0-9]/g, '')
      .slice(0, 8) || 'bin'
  );
}

/** One GET; a redirect answers its Location, anything else is streamed to `dest`. */
function getOnce(url: URL, opts: Required<FetchOptions>, dest: string, deadline: AbortSignal) {
  return new Promise<{ location?: string; md5?: string; size?: number }>((resolve, reject) => {
    const refused = checkHost(url.hostname, fetchCheck(opts.allowPrivate));
    if (refused !== undefined) return reject(new FetchError(refused));
    const mod = url.protocol === 'https:' ? lazyHttps() : http;
    const req = mod.get(
      url,
      { lookup: guardedLookup(fetchCheck(opts.allowPrivate)), signal: deadline },
      (res) => {
        const status = res.statusCode ?? 0;
        if (status >= 300 && status < 400 && res.headers.location) {
          res.resume();
          return resolve({ location: res.headers.location });
        }
        if (status !== 200) {
          res.resume();
          return reject(new FetchError(`the server answered HTTP ${status}`));
        }
        const declared = Number(res.headers['content-length']);
        if (declared > opts.maxBytes) {
          res.destroy();
          return reject(new FetchError(`the file is larger than ${opts.maxBytes} bytes`));
        }
        const hash = createHash('md5');
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > opts.maxBytes)
            res.destroy(new FetchError(`the file is larger than ${opts.maxBytes} bytes`));
          else hash.update(chunk);
        });
        pipeline(res, createWriteStream(dest)).then(() => resolve({ md5: hash.digest('hex'), size }), reject);
      },
    );
    req.on('error', reject);
  });
}

/** Download `rawUrl` to a temporary file (the caller removes it), with its MD5 and size. */
export async function fetchAudio(rawUrl: string, options: FetchOptions): Promise<FetchedAudio> {
  const opts = { maxBytes: MAX_FETCH, timeoutMs: FETCH_TIMEOUT_MS, ...options };
  const dir = join(tmpdir(), 'partner-sim-fetch');
  await mkdir(dir, { recursive: true });
  const deadline = AbortSignal.timeout(opts.timeoutMs);
  let url = new URL(rawUrl);
  for (let hop = 0; hop <= MAX_REDIRECTS; hop++) {
    if (!/^https?:$/.test(url.protocol)) throw new FetchError(`${url.protocol} URLs are not fetched`);
    const path = join(dir, `${randomUUID()}.${fileTypeOf(url)}`);
    try {
      const got = await getOnce(url, opts, path, deadline);
      if (got.location === undefined)
        return { path, md5: got.md5!, size: got.size!, filetype: fileTypeOf(url) };
      url = new URL(got.location, url);
    } catch (e) {
      await rm(path, { force: true });
      if (e instanceof FetchError) throw e;
      if (e instanceof AddressRefused) throw new FetchError(e.message);
      if (deadline.aborted) throw new FetchError(`no answer within ${Math.round(opts.timeoutMs / 1000)} s`);
      const cause = (e as Error).cause as Error | undefined;
      throw new FetchError((cause ?? (e as Error)).message);
    }
  }
  throw new FetchError(`more than ${MAX_REDIRECTS} redirects`);
}
