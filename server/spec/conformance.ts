import type { OperationInfo, SpecIndex } from './openapi.js';
import { validatorsFor } from './validators.js';

/**
 * The one definition of "this response conforms to the operation's declared response": used
 * by the contract suite (contracts/lib/conform.ts), the server's test kit
 * (testing/rawExchange.ts), the send point with `--validate-responses` (http/send.ts) and the
 * storage error path (http/errorHandler.ts). Status, content type, the JSON body against its
 * schema (the server's own ajv validators), an S3 error document's required elements and
 * `Code` enum, and every declared response header (required ones present, values matching
 * type, pattern and enum). Answers are sentences naming the field; empty when it conforms.
 */
export interface Answer {
  status: number;
  /** The response's headers, names in lower case. */
  headers: Readonly<Record<string, string | string[] | number | undefined>>;
  /** The body: parsed JSON, text (XML or anything else), or undefined when there is none. */
  body: unknown;
}

/** A response as it arrived on the wire: its body still text ('' when none). */
export interface ObservedAnswer {
  status: number;
  headers: Readonly<Record<string, string | string[] | number | undefined>>;
  text: string;
}

const headerValue = (h: Answer['headers'], name: string): string | undefined => {
  const v = h[name.toLowerCase()];
  return Array.isArray(v) ? v.join(', ') : v === undefined ? undefined : String(v);
};

/** Everything wrong with an answer `op` gave (empty when it conforms). */
export function answerViolations(spec: SpecIndex, op: OperationInfo, a: Answer): string[] {
  const contentType = headerValue(a.headers, 'content-type');
  const out = validatorsFor(spec).validateResponse(op, a.status, contentType, a.body);
  if (out.length > 0) return out;
  const media = contentType?.split(';')[0]?.trim().toLowerCase();
  if (media?.includes('xml') && typeof a.body === 'string') out.push(...xmlViolations(spec, op, a));
  out.push(...headerViolations(spec, op, a));
  return out;
}

/** `answerViolations` of a response read off the wire: a JSON content type must hold JSON. */
export function observedViolations(spec: SpecIndex, op: OperationInfo, res: ObservedAnswer): string[] {
  const media = headerValue(res.headers, 'content-type')?.split(';')[0]?.trim().toLowerCase();
  let body: unknown = res.text === '' ? undefined : res.text;
  if (media?.includes('json') && res.text !== '') {
    try {
      body = JSON.parse(res.text);
    } catch {
      return [`${op.id} ${res.status}: content type is ${media} but the body is not JSON`];
    }
  }
  return answerViolations(spec, op, { status: res.status, headers: res.headers, body });
}

interface HeaderSpec {
  required?: boolean;
  schema?: { type?: string; pattern?: string; enum?: string[] };
}

/** Declared response headers: required ones present, values matching type, pattern and enum. */
function headerViolations(spec: SpecIndex, op: OperationInfo, a: Answer): string[] {
  const declared = spec.response(op, a.status)?.headers ?? {};
  const out: string[] = [];
  for (const [name, raw] of Object.entries(declared)) {
    const h = spec.deref<HeaderSpec>(raw);
    const value = headerValue(a.headers, name);
    const at = `${op.id} ${a.status}: header ${name}`;
    if (value === undefined) {
      if (h.required) out.push(`${at} is required but missing`);
      continue;
    }
    const s = h.schema ?? {};
    if (s.type === 'integer' && !/^\d+$/.test(value)) out.push(`${at} must be an integer (got '${value}')`);
    if (s.pattern && !new RegExp(s.pattern).test(value))
      out.push(`${at} must match ${s.pattern} (got '${value}')`);
    if (s.enum && !s.enum.includes(value))
      out.push(`${at} must be one of ${s.enum.join(', ')} (got '${value}')`);
  }
  return out;
}

/** S3 error documents are XML: the elements the S3Error schema requires, and its Code enum. */
function xmlViolations(spec: SpecIndex, op: OperationInfo, a: Answer): string[] {
  const text = a.body as string;
  const schema = spec.deref<{ required?: string[]; properties?: { Code?: { enum?: string[] } } }>({
    $ref: '#/components/schemas/S3Error',
  });
  const at = `${op.id} ${a.status} response body`;
  if (!/<Error>[\s\S]*<\/Error>/.test(text))
    return [`${op.id} ${a.status}: body is not an S3 <Error> document`];
  const out: string[] = [];
  for (const field of schema.required ?? []) {
    if (!new RegExp(`<${field}>[\\s\\S]*</${field}>`).test(text))
      out.push(`${at}: /Error/${field} is required but missing`);
  }
  const code = /<Code>([^<]*)<\/Code>/.exec(text)?.[1];
  const allowed = schema.properties?.Code?.enum;
  if (code !== undefined && allowed && !allowed.includes(code))
    out.push(`${at}: /Error/Code must be one of ${allowed.join(', ')} (got '${code}')`);
  return out;
}
