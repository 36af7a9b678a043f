import { adminSpec, apiSpec, type SpecIndex } from '../../server/spec/openapi.js';
import { validatorsFor } from '../../server/spec/validators.js';

export interface Observed {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** Raw body text ('' when none). */
  text: string;
}

/** `admin:<operationId>` names an operation of the control API; anything else, openapi.yaml. */
export function specOf(op: string): { spec: SpecIndex; id: string } {
  return op.startsWith('admin:') ? { spec: adminSpec(), id: op.slice(6) } : { spec: apiSpec(), id: op };
}

const header = (h: Observed['headers'], name: string): string | undefined => {
  const v = h[name.toLowerCase()];
  return Array.isArray(v) ? v.join(', ') : v;
};

interface HeaderSpec {
  required?: boolean;
  schema?: { type?: string; pattern?: string; enum?: string[]; minimum?: number };
}

/** Declared response headers: required ones present, values matching type, pattern and enum. */
function headerViolations(spec: SpecIndex, id: string, res: Observed): string[] {
  const op = spec.get(id);
  const declared = spec.response(op, res.status)?.headers ?? {};
  const out: string[] = [];
  for (const [name, raw] of Object.entries(declared)) {
    const h = spec.deref<HeaderSpec>(raw);
    const value = header(res.headers, name);
    if (value === undefined) {
      if (h.required) out.push(`${id} ${res.status}: header ${name} is required but missing`);
      continue;
    }
    const s = h.schema ?? {};
    if (s.type === 'integer' && !/^\d+$/.test(value))
      out.push(`${id} ${res.status}: header ${name} must be an integer (got '${value}')`);
    if (s.pattern && !new RegExp(s.pattern).test(value))
      out.push(`${id} ${res.status}: header ${name} must match ${s.pattern} (got '${value}')`);
    if (s.enum && !s.enum.includes(value))
      out.push(`${id} ${res.status}: header ${name} must be one of ${s.enum.join(', ')} (got '${value}')`);
  }
  return out;
}

/** S3 error documents are XML: check the elements the S3Error schema requires, and its Code enum. */
function xmlViolations(spec: SpecIndex, id: string, res: Observed): string[] {
  const schema = spec.deref<{ required?: string[]; properties?: { Code?: { enum?: string[] } } }>({
    $ref: '#/components/schemas/S3Error',
  });
  const out: string[] = [];
  if (!/<Error>[\s\S]*<\/Error>/.test(res.text))
    return [`${id} ${res.status}: body is not an S3 <Error> document`];
  for (const field of schema.required ?? []) {
    if (!new RegExp(`<${field}>[\\s\\S]*</${field}>`).test(res.text))
      out.push(`${id} ${res.status} response body: /Error/${field} is required but missing`);
  }
  const code = /<Code>([^<]*)<\/Code>/.exec(res.text)?.[1];
  const allowed = schema.properties?.Code?.enum;
  if (code !== undefined && allowed && !allowed.includes(code))
    out.push(
      `${id} ${res.status} response body: /Error/Code must be one of ${allowed.join(', ')} (got '${code}')`,
    );
  return out;
}

/**
 * Every way an observed response breaks the operation's declared response: status, content
 * type, body schema (the shared ajv validators of the server), declared headers, S3 XML.
 * Empty when it conforms. Messages name the field.
 */
export function violations(op: string, res: Observed): string[] {
  const { spec, id } = specOf(op);
  const contentType = header(res.headers, 'content-type');
  const media = contentType?.split(';')[0]?.trim().toLowerCase();
  let body: unknown = res.text === '' ? undefined : res.text;
  if (media?.includes('json') && res.text !== '') {
    try {
      body = JSON.parse(res.text);
    } catch {
      return [`${id} ${res.status}: content type is ${media} but the body is not JSON`];
    }
  }
  // A declared body-less response must not carry a content type claiming a body either.
  const declared = spec.response(spec.get(id), res.status);
  const noBody = declared && Object.keys(declared.content ?? {}).length === 0;
  const out = validatorsFor(spec).validateResponse(
    spec.get(id),
    res.status,
    noBody && body === undefined ? undefined : contentType,
    body,
  );
  if (out.length > 0) return out;
  if (media?.includes('xml')) out.push(...xmlViolations(spec, id, res));
  out.push(...headerViolations(spec, id, res));
  return out;
}
