import type { components } from '../spec/device-types.js';
import type { PhoneRecord } from './phoneModel.js';

type Dev = components['schemas'];
const iso = (ms: number): string => new Date(ms).toISOString();

/** The phone's bridge events after `after` that are due by `now`, at most `limit`, and when the next is. */
export function eventPage(p: PhoneRecord, now: number, after: number, limit: number): Dev['EventPage'] {
  const out: Dev['Event'][] = [];
  let next_at: string | null = null;
  for (const e of p.events) {
    if (e.seq <= after) continue;
    if (e.at > now || out.length >= limit) {
      next_at = e.at > now ? iso(e.at) : iso(now);
      break;
    }
    out.push({ seq: e.seq, at: iso(e.at), name: e.name, data: e.data });
  }
  return { events: out, cursor: out.length ? out[out.length - 1]!.seq : after, next_at, now: iso(now) };
}
