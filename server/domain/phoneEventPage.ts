import type { components } from '../spec/device-types.js';
import type { PhoneRecord } from './phoneModel.js';

type Dev = components['schemas'];
const iso = (ms: number): string => new Date(ms).toISOString();

/**
 * The phone's bridge events after `after` that are due by `now`, at most `limit`, when the
 * next is, and when the next one that is not a running scan's is (a scan left on must not
 * hold a client's process open for its whole window).
 */
export function eventPage(p: PhoneRecord, now: number, after: number, limit: number): Dev['EventPage'] {
  const out: Dev['Event'][] = [];
  let next_at: string | null = null;
  let next_answer_at: string | null = null;
  for (const e of p.events) {
    if (e.seq <= after) continue;
    if (next_at === null && (e.at > now || out.length >= limit)) next_at = e.at > now ? iso(e.at) : iso(now);
    if (next_at === null) {
      out.push({ seq: e.seq, at: iso(e.at), name: e.name, data: e.data });
      continue;
    }
    if (e.tag !== 'scan') {
      next_answer_at = e.at > now ? iso(e.at) : iso(now);
      break;
    }
  }
  return {
    events: out,
    cursor: out.length ? out[out.length - 1]!.seq : after,
    next_at,
    next_answer_at,
    now: iso(now),
  };
}
