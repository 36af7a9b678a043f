import { Agent, request } from 'node:http';
import { manyKeyBody } from '../server/testing/hostileBodies.js';

/** Requests in flight at once: enough to keep the simulator busy, few enough to stay a soak. */
const PARALLEL = 8;

export interface HostileResult {
  sent: number;
  /** Answers other than the expected 401 (or a failed connection). */
  unexpected: number;
  samples: string[];
}

/**
 * Issue 20, item 1: `count` unauthenticated 1 MB JSON bodies of 85,000 keys each, POSTed to
 * the user-token endpoint. Each is refused (401) and journaled; what an entry keeps must not
 * grow with the body, so RSS after them stays near RSS before (the caller measures both).
 */
export async function sendHostile(
  apiBase: string,
  count: number,
  progress: (sent: number) => void = () => {},
): Promise<HostileResult> {
  const body = Buffer.from(manyKeyBody());
  const url = new URL(`${apiBase}/open/partner/users/access-token`);
  const agent = new Agent({ keepAlive: true, maxSockets: PARALLEL });
  const result: HostileResult = { sent: 0, unexpected: 0, samples: [] };
  const one = () =>
    new Promise<void>((resolve) => {
      const req = request(
        url,
        {
          method: 'POST',
          agent,
          headers: { 'content-type': 'application/json', 'content-length': String(body.length) },
        },
        (res) => {
          res.resume();
          res.on('end', () => {
            if (res.statusCode !== 401) miss(`status ${res.statusCode}`);
            resolve();
          });
        },
      );
      req.on('error', (e) => {
        miss(e.message);
        resolve();
      });
      req.end(body);
    });
  const miss = (why: string) => {
    result.unexpected++;
    if (result.samples.length < 5) result.samples.push(why);
  };
  let next = 0;
  const worker = async () => {
    while (next < count) {
      next++;
      await one();
      result.sent++;
      if (result.sent % 250 === 0) progress(result.sent);
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.min(PARALLEL, count) }, worker));
  } finally {
    agent.destroy();
  }
  return result;
}
