import type { IncomingHttpHeaders, OutgoingHttpHeaders } from 'node:http';
import type { Pseudonyms } from '../control/pseudonyms.js';
import type { TappedBody } from './bodyTap.js';

/** One exchange as the recorder saw it: the request as it reached it, the upstream's answer. */
export interface Exchange {
  started: Date;
  ms: number;
  method: string;
  /** Absolute: the recorder's own origin and the simulator path. */
  url: string;
  reqHeaders: IncomingHttpHeaders;
  /** Bodies as they streamed past: size, MD5, and the bytes when kept (bodyTap.ts). */
  reqBody: TappedBody;
  status: number;
  statusText: string;
  resHeaders: OutgoingHttpHeaders;
  resBody: TappedBody;
  operation: string | undefined;
  region: string;
  /** Where the upstream's answer broke openapi.yaml (upstreamViolations.ts); none when empty. */
  violations?: string[];
}

type Pair = { name: string; value: string };

const pairs = (headers: Record<string, string>): Pair[] =>
  Object.entries(headers).map(([name, value]) => ({ name, value }));

const header = (h: IncomingHttpHeaders | OutgoingHttpHeaders, name: string): string => {
  const v = h[name];
  return Array.isArray(v) ? v.join(', ') : v === undefined ? '' : String(v);
};

/** Bodies kept as text; anything else (audio, octet streams) is kept as its length and MD5. */
const TEXTUAL = /json|xml|text\/|x-www-form-urlencoded|yaml/i;
export const isTextual = (mimeType: string): boolean => TEXTUAL.test(mimeType);

/** A body for the file: redacted text, or its length and MD5 when it is bytes or too long. */
function body(
  tapped: TappedBody,
  mimeType: string,
  names: Pseudonyms,
): { text?: string; size: number; _md5?: string; comment?: string } {
  const { size, md5, bytes } = tapped;
  if (size === 0) return { text: '', size: 0 };
  if (!bytes) {
    const what = isTextual(mimeType) ? 'text over the body limit' : 'bytes';
    return { size, _md5: md5, comment: `${what} not kept: ${size} bytes, MD5 ${md5}` };
  }
  const text = bytes.toString('utf8');
  if (/json/i.test(mimeType)) {
    try {
      return { text: JSON.stringify(names.json(JSON.parse(text))), size };
    } catch {
      // not JSON after all: redacted as any text
    }
  }
  return { text: names.text(text), size };
}

/**
 * The HAR 1.2 entry of an exchange, every secret through the one redactor (with the session's
 * stable placeholders): headers, URLs and their query, JSON and form bodies, user ids;
 * request bodies are redacted before answers, so a user id is known before an answer echoes it.
 */
export function harEntry(x: Exchange, names: Pseudonyms): object {
  const url = names.text(x.url);
  const reqType = header(x.reqHeaders, 'content-type');
  const request = body(x.reqBody, reqType, names);
  const resType = header(x.resHeaders, 'content-type');
  const content = body(x.resBody, resType, names);
  const resHeaders: Record<string, string | string[] | undefined> = {};
  for (const [k, v] of Object.entries(x.resHeaders))
    resHeaders[k] = Array.isArray(v) ? v : v === undefined ? undefined : String(v);
  const location = header(x.resHeaders, 'location');
  return {
    startedDateTime: x.started.toISOString(),
    time: x.ms,
    request: {
      method: x.method,
      url,
      httpVersion: 'HTTP/1.1',
      cookies: [],
      headers: pairs(names.headers(x.reqHeaders)),
      queryString: [...new URL(url).searchParams].map(([name, value]) => ({ name, value })),
      ...(x.reqBody.size > 0 || reqType
        ? {
            postData: {
              mimeType: reqType || 'application/octet-stream',
              text: request.text ?? '',
              ...(request._md5 ? { _size: request.size, _md5: request._md5, comment: request.comment } : {}),
            },
          }
        : {}),
      headersSize: -1,
      bodySize: x.reqBody.size,
    },
    response: {
      status: x.status,
      statusText: x.statusText,
      httpVersion: 'HTTP/1.1',
      cookies: [],
      headers: pairs(names.headers(resHeaders)),
      content: { mimeType: resType || 'x-unknown', ...content },
      redirectURL: location ? names.text(location) : '',
      headersSize: -1,
      bodySize: x.resBody.size,
    },
    cache: {},
    timings: { send: 0, wait: x.ms, receive: 0 },
    _operation: x.operation ?? null,
    _region: x.region,
    // A violation may quote a value of the answer: redacted like the rest.
    ...(x.violations?.length ? { _violations: x.violations.map((v) => names.text(v)) } : {}),
  };
}
