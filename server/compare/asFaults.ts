import type { ControlClient } from '../embed/controlClient.js';
import type { components } from '../spec/admin-types.js';
import { apiSpec } from '../spec/openapi.js';
import { harHeader } from './har.js';
import type { ExchangeResult } from './replay.js';

type FaultRule = components['schemas']['FaultRule'];

/** Headers a recorded error carries that a client acts on. */
const KEPT = ['retry-after', 'content-type'];

/**
 * Failures of the service itself, which a fault rule stands for: a timeout, throttling, an
 * outage. Any other 4xx answers the client's own request (bad credentials, its own bad body,
 * an unknown serial): the simulator must give it by itself, and a rule would fail the app's
 * correct requests too.
 */
const serviceFailure = (status: number): boolean => status === 408 || status === 429 || status >= 500;

/** A rule to create and why it is made. */
export interface PlannedRule {
  rule: FaultRule;
  why: string;
}

/** A recorded failure no rule is made for, and why. */
export interface SkippedFailure {
  label: string;
  operation: string;
  status: number;
  why: string;
}

/**
 * What `--as-faults` does with each recorded failure (an answer of 400 or more). A rule only
 * for what the simulator cannot explain: a failure of the service (timeout, 429, 5xx) the
 * target answered otherwise, grouped by operation, status and body (`times` = how often it
 * was recorded), matched to `clientId`'s requests. Skipped, with the reason: one the target
 * reproduced without a rule, a client's own 4xx, one with no operation to put a rule on.
 */
export function planFaults(
  results: ExchangeResult[],
  clientId: string | undefined,
): { rules: PlannedRule[]; skipped: SkippedFailure[] } {
  const rules = new Map<string, PlannedRule & { labels: string[]; answered: Set<number> }>();
  const skipped: SkippedFailure[] = [];
  const ops = apiSpec().operations;
  for (const r of results) {
    const status = r.recorded.status;
    if (status < 400) continue;
    const skip = (why: string) => skipped.push({ label: r.label, operation: r.operation, status, why });
    const answered = r.actual.status;
    if (status === answered) {
      skip(`the target answered ${answered} too: reproduced without a rule`);
      continue;
    }
    if (!ops.has(r.operation)) {
      skip(`no operation of openapi.yaml to put a rule on (the target answered ${answered})`);
      continue;
    }
    if (!serviceFailure(status)) {
      skip(
        `the client's own error, which the simulator must give by itself, but the target answered ${answered}: drift to look into, not a fault (a rule would fail the app's correct requests too)`,
      );
      continue;
    }
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
      known.rule.times = (known.rule.times ?? 1) + 1;
      known.labels.push(r.label);
      known.answered.add(answered);
      continue;
    }
    const headers: Record<string, string> = {};
    for (const name of KEPT) {
      const v = harHeader(r.entry.response.headers, name);
      // A JSON body is sent as JSON by the fault hook; a text body needs its type said.
      if (v !== undefined && (name !== 'content-type' || typeof body === 'string')) headers[name] = v;
    }
    const rule: FaultRule = {
      operation: r.operation,
      status,
      ...(body === undefined ? {} : { body }),
      ...(Object.keys(headers).length > 0 ? { headers } : {}),
      times: 1,
      ...(clientId ? { match: { client_id: clientId } } : {}),
    };
    rules.set(key, { rule, why: '', labels: [r.label], answered: new Set([answered]) });
  }
  const planned = [...rules.values()].map(({ rule, labels, answered }) => ({
    rule,
    why: `recorded ${rule.status} at ${labels.join(', ')}, the target answered ${[...answered].join('/')}: a failure of the service the simulator cannot explain`,
  }));
  return { rules: planned, skipped };
}

/** The rules alone (what `planFaults` would create). */
export function faultRules(results: ExchangeResult[], clientId: string | undefined): FaultRule[] {
  return planFaults(results, clientId).rules.map((p) => p.rule);
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
