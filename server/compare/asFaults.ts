import type { ControlClient } from '../embed/controlClient.js';
import type { components } from '../spec/admin-types.js';
import { apiSpec } from '../spec/openapi.js';
import { harHeader } from './har.js';
import type { ExchangeResult } from './replay.js';

type FaultRule = components['schemas']['FaultRule'];

/** Headers a recorded error carries that a client acts on. */
const KEPT = ['retry-after', 'content-type'];

/**
 * The fault rules that reproduce what the recording answered and the target did not: each
 * recorded non-2xx answer the target answered otherwise, grouped by operation, status and
 * body (`times` = how often it was recorded), matched to `clientId`'s requests.
 */
export function faultRules(results: ExchangeResult[], clientId: string | undefined): FaultRule[] {
  const rules = new Map<string, FaultRule>();
  const ops = apiSpec().operations;
  for (const r of results) {
    const status = r.recorded.status;
    if ((status >= 200 && status < 300) || status === r.actual.status || !ops.has(r.operation)) continue;
    const text = r.entry.response.content.text ?? '';
    let body: unknown;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      body = text;
    }
    const key = `${r.operation}|${status}|${text}`;
    const known = rules.get(key);
    if (known) {
      known.times = (known.times ?? 1) + 1;
      continue;
    }
    const headers: Record<string, string> = {};
    for (const name of KEPT) {
      const v = harHeader(r.entry.response.headers, name);
      // A JSON body is sent as JSON by the fault hook; a text body needs its type said.
      if (v !== undefined && (name !== 'content-type' || typeof body === 'string')) headers[name] = v;
    }
    rules.set(key, {
      operation: r.operation,
      status,
      ...(body === undefined ? {} : { body }),
      ...(Object.keys(headers).length > 0 ? { headers } : {}),
      times: 1,
      ...(clientId ? { match: { client_id: clientId } } : {}),
    });
  }
  return [...rules.values()];
}

/** Create the rules through the control API; resolves with the stored rules (ids included). */
export async function createFaults(
  control: ControlClient,
  rules: FaultRule[],
): Promise<components['schemas']['Fault'][]> {
  const out: components['schemas']['Fault'][] = [];
  for (const rule of rules) out.push(await control.call('createFault', { body: rule }));
  return out;
}
