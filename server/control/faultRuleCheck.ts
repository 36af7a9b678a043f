import { SimError } from '../core/errors.js';
import { type FaultRule, WEBHOOK_DELIVERY } from './faultModel.js';

/** What the schema cannot say about a fault rule: which combinations make sense. */
export function checkFaultRule(rule: FaultRule, operations: () => ReadonlySet<string>): void {
  const bad = (field: string, msg: string) => SimError.invalidField(['body', field], msg);
  if (rule.operation === WEBHOOK_DELIVERY || rule.webhook_fault !== undefined) {
    checkWebhookRule(rule, bad);
    return;
  }
  if (rule.match?.event !== undefined) throw bad('match', 'match.event is for webhookDelivery rules');
  if (!operations().has(rule.operation)) {
    const known = [...operations(), WEBHOOK_DELIVERY].sort().join(', ');
    throw bad('operation', `Unknown operationId ${rule.operation}; one of: ${known}`);
  }
  if (rule.transcription_outcome !== undefined) {
    if (rule.operation !== 'createTranscription')
      throw bad('transcription_outcome', 'Only for operation createTranscription');
    const others = (['status', 'body', 'headers', 'delay_ms', 'action'] as const).filter(
      (k) => rule[k] !== undefined,
    );
    if (others.length > 0)
      throw bad(others[0]!, 'A transcription_outcome rule changes the task, not the HTTP answer');
    return;
  }
  if (rule.action === 'wrong_etag' && rule.operation !== 'uploadPart')
    throw bad('action', 'wrong_etag applies to operation uploadPart only');
  // Only `malformed` keeps a status of its own; every action decides the body itself.
  const answer = (['status', 'body', 'headers'] as const).filter((k) => rule[k] !== undefined);
  const clash =
    rule.action === 'malformed' ? answer.filter((k) => k !== 'status') : rule.action ? answer : [];
  if (clash.length > 0) throw bad(clash[0]!, `action ${rule.action} answers without ${clash[0]}`);
  // Case-insensitive names are beyond a JSON Schema pattern: the spec says which, this checks.
  const framing = Object.keys(rule.headers ?? {}).find((h) => FRAMING_HEADERS.has(h.toLowerCase()));
  if (framing !== undefined)
    throw SimError.invalidField(
      ['body', 'headers', framing],
      'The simulator frames the answer itself; this header would break it',
      'value_error',
      framing,
    );
  if ((rule.body !== undefined || rule.headers !== undefined) && rule.status === undefined)
    throw bad(rule.body !== undefined ? 'body' : 'headers', 'Needs status');
  if (rule.status === undefined && rule.delay_ms === undefined && rule.action === undefined)
    throw bad('status', 'Give at least one of status, delay_ms, action or transcription_outcome');
}

/** A `webhookDelivery` rule: a `webhook_fault`, `delay_ms` only with `late`, nothing of an answer. */
function checkWebhookRule(rule: FaultRule, bad: (field: string, msg: string) => SimError): void {
  if (rule.operation !== WEBHOOK_DELIVERY)
    throw bad('webhook_fault', `Only for operation ${WEBHOOK_DELIVERY}`);
  if (rule.webhook_fault === undefined)
    throw bad('webhook_fault', `Operation ${WEBHOOK_DELIVERY} needs webhook_fault`);
  const others = (['status', 'body', 'headers', 'action', 'transcription_outcome'] as const).filter(
    (k) => rule[k] !== undefined,
  );
  if (others.length > 0) throw bad(others[0]!, 'A webhook_fault rule changes deliveries, not an HTTP answer');
  if (rule.delay_ms !== undefined && rule.webhook_fault !== 'late')
    throw bad('delay_ms', 'Only with webhook_fault late');
  const m = rule.match ?? {};
  const foreign = (['sn', 'part_number', 'user_id', 'path_contains'] as const).find(
    (k) => m[k] !== undefined,
  );
  if (foreign !== undefined) throw bad('match', `match.${foreign} does not apply to deliveries`);
}

/** Headers that decide how an answer is framed on the wire: a rule setting them breaks it. */
const FRAMING_HEADERS = new Set([
  'content-length',
  'transfer-encoding',
  'connection',
  'keep-alive',
  'upgrade',
  'te',
  'trailer',
]);
