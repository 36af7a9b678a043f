import { Pseudonyms } from '../server/control/pseudonyms.js';
import { type Exchange, harEntry } from '../server/record/harEntry.js';
import { type Benchmark, fmt, median } from './lib.js';

/** Issue 45: a request's redaction after 12,000 distinct secrets within 1.2x of after 10. */
const RATIO = 1.2;
const ROOT = 'http://127.0.0.1:4010/developer/api';

const tapped = (text: string) => ({ size: Buffer.byteLength(text), md5: '', bytes: Buffer.from(text) });

/**
 * One user-token exchange as the recorder writes it: a bearer token in a header, a user id in
 * the body, a token and an error text in the answer, a query in the URL. `n` makes every
 * secret and id distinct.
 */
function exchange(n: number): Exchange {
  const token = `opaque-partner-token-${n.toString(36).padStart(8, '0')}`;
  return {
    started: new Date(0),
    ms: 3,
    method: 'POST',
    url: `${ROOT}/open/partner/users/access-token?trace=t${n}&lang=en`,
    reqHeaders: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      'user-agent': 'partner-app/2.4 (node 20)',
      'x-request-id': `req-${n}`,
    },
    reqBody: tapped(JSON.stringify({ user_id: `partner-user-${n}` })),
    status: 200,
    statusText: 'OK',
    resHeaders: { 'content-type': 'application/json', etag: `"e${n}"` },
    resBody: tapped(
      JSON.stringify({
        access_token: `ut_${n.toString(36)}_${'q'.repeat(40)}`,
        token_type: 'Bearer',
        expires_in: 3600,
        message: `token for partner-user-${n} issued; the previous one (${token}) stays valid`,
      }),
    ),
    operation: 'createUserToken',
    region: 'us',
  };
}

/** A recording that has seen `secrets` distinct bearer tokens (each request mints one more). */
function session(secrets: number): Pseudonyms {
  const names = new Pseudonyms();
  for (let n = 0; n < secrets; n++) harEntry(exchange(n), names);
  return names;
}

/** CPU µs per harEntry of the same request, over `calls` calls. */
function cost(names: Pseudonyms, x: Exchange, calls: number): number {
  const t0 = process.cpuUsage();
  for (let i = 0; i < calls; i++) harEntry(x, names);
  const t = process.cpuUsage(t0);
  return (t.user + t.system) / calls;
}

/**
 * What redacting one exchange costs once a long-running recorder has seen many secrets:
 * the same request against a session of 10 tokens and one of 12,000, measured in alternating
 * rounds in this process (CPU time), the median of each. Before issue 45 every text was scanned
 * for every secret seen so far: 2.7 ms of CPU at the start, 8.6 ms after 12,000 tokens.
 */
export const recordRedactionBenchmark: Benchmark = {
  name: 'record-redaction',
  target: `one exchange's redaction after 12,000 distinct secrets <= ${RATIO}x after 10`,
  async run({ quick, flags }) {
    const many = Number(flags.secrets ?? 12_000);
    const rounds = Number(flags.rounds ?? (quick ? 5 : 15));
    const calls = Number(flags.calls ?? 400);
    const few = session(10);
    const big = session(many);
    // The same request for both: its token and user id are among the first 10 of each.
    const x = exchange(3);
    cost(few, x, calls);
    cost(big, x, calls); // warm-up: both paths compiled
    const a: number[] = [];
    const b: number[] = [];
    for (let r = 0; r < rounds; r++) {
      a.push(cost(few, x, calls));
      b.push(cost(big, x, calls));
    }
    const [at10, atMany] = [median(a), median(b)];
    const ratio = atMany / at10;
    return {
      ok: ratio <= RATIO,
      lines: [
        `the same exchange's HAR entry (headers, URL, JSON both ways), ${rounds} alternating rounds of ${calls} calls, CPU time`,
        `after 10 secrets:      ${fmt(at10, 1)} µs per exchange (baseline)`,
        `after ${many} secrets: ${fmt(atMany, 1)} µs per exchange`,
        `ratio: ${fmt(ratio, 2)}x (target <= ${RATIO}) ${ratio <= RATIO ? 'OK' : 'MISSED'}`,
      ],
    };
  },
};
