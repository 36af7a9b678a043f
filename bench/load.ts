import { connect, type Socket } from 'node:net';
import { connect as tlsConnect } from 'node:tls';

/** One request a load run repeats: written as raw bytes, so the client costs little CPU. */
export interface LoadRequest {
  url: string;
  method?: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
  /** For an https:// URL: the CA to trust (the simulator's local CA). */
  ca?: string;
}

export interface LoadResult {
  requests: number;
  /** Answers whose status was not the expected one. */
  bad: number;
  rps: number;
  p50Us: number;
  p99Us: number;
  /** Every measured latency, ms, ascending: for merging runs against several servers. */
  latenciesMs: number[];
}

/** The `p` quantile (0..1) of ascending `sorted`, 0 when empty. */
export const quantile = (sorted: number[], p: number): number =>
  sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]! : 0;

function rawRequest(r: LoadRequest): Buffer {
  const u = new URL(r.url);
  const body = r.body === undefined ? undefined : Buffer.from(r.body);
  const lines = [`${r.method ?? 'GET'} ${u.pathname}${u.search} HTTP/1.1`, `host: ${u.host}`];
  for (const [k, v] of Object.entries(r.headers ?? {})) lines.push(`${k}: ${v}`);
  if (body) lines.push(`content-length: ${body.length}`);
  const head = Buffer.from(`${lines.join('\r\n')}\r\n\r\n`);
  return body ? Buffer.concat([head, body]) : head;
}

const CRLF2 = Buffer.from('\r\n\r\n');

/**
 * Length of the first complete HTTP/1.1 response in `buf` (content-length or chunked), or -1
 * while it is incomplete. Enough HTTP for JSON answers of a known server, not a general parser.
 */
function responseLength(buf: Buffer): { length: number; status: number } {
  const end = buf.indexOf(CRLF2);
  if (end < 0) return { length: -1, status: 0 };
  const head = buf.toString('latin1', 0, end);
  const status = Number(head.slice(9, 12));
  const cl = /\r\ncontent-length:\s*(\d+)/i.exec(head);
  if (cl) {
    const total = end + 4 + Number(cl[1]);
    return { length: buf.length >= total ? total : -1, status };
  }
  if (/\r\ntransfer-encoding:\s*chunked/i.test(head)) {
    const last = buf.indexOf('0\r\n\r\n', end + 4);
    return { length: last < 0 ? -1 : last + 5, status };
  }
  return { length: end + 4, status };
}

/**
 * Closed-loop load: `connections` keep-alive sockets, each sending the next request as soon
 * as the previous answer is complete, for `durationMs` after `warmupMs` (or until `total`
 * answers were measured). Latency is the time
 * from writing a request to reading its whole answer. Hand-rolled over `net` because an HTTP
 * client in this process would cost more CPU than the server under test on a 2-core machine.
 */
export async function load(
  req: LoadRequest,
  opts: { connections: number; durationMs: number; warmupMs?: number; expectStatus?: number; total?: number },
): Promise<LoadResult> {
  const u = new URL(req.url);
  const bytes = rawRequest(req);
  const expect = opts.expectStatus ?? 200;
  const lat: number[] = [];
  let bad = 0;
  let measuring = false;
  let stopping = false;
  let stopEarly: () => void = () => {};
  const sockets: Socket[] = [];
  const done: Promise<void>[] = [];
  for (let c = 0; c < opts.connections; c++) {
    const secure = u.protocol === 'https:';
    const s = secure
      ? tlsConnect({ port: Number(u.port), host: u.hostname, ...(req.ca ? { ca: req.ca } : {}) })
      : connect(Number(u.port), u.hostname);
    s.setNoDelay(true);
    sockets.push(s);
    done.push(
      new Promise<void>((resolve, reject) => {
        let buf: Buffer = Buffer.alloc(0);
        let sent = 0;
        const send = () => {
          if (stopping) {
            s.end();
            resolve();
            return;
          }
          sent = performance.now();
          s.write(bytes);
        };
        s.on(secure ? 'secureConnect' : 'connect', send);
        s.on('error', reject);
        s.on('data', (d: Buffer) => {
          buf = buf.length ? Buffer.concat([buf, d]) : d;
          for (;;) {
            const { length, status } = responseLength(buf);
            if (length < 0) return;
            buf = buf.subarray(length);
            if (measuring) {
              lat.push(performance.now() - sent);
              if (status !== expect) bad++;
              if (lat.length === opts.total) stopEarly();
            }
            send();
          }
        });
      }),
    );
  }
  if (opts.warmupMs !== 0) await new Promise((r) => setTimeout(r, opts.warmupMs ?? 1000));
  measuring = true;
  const t0 = performance.now();
  await new Promise<void>((r) => {
    const timer = setTimeout(r, opts.durationMs);
    stopEarly = () => {
      clearTimeout(timer);
      r();
    };
  });
  measuring = false;
  const elapsed = performance.now() - t0;
  stopping = true;
  await Promise.all(done);
  for (const s of sockets) s.destroy();
  lat.sort((a, b) => a - b);
  return {
    requests: lat.length,
    bad,
    rps: (lat.length * 1000) / elapsed,
    p50Us: quantile(lat, 0.5) * 1000,
    p99Us: quantile(lat, 0.99) * 1000,
    latenciesMs: lat,
  };
}
