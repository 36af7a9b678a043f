import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import type { ValidationIssue } from '../core/errors.js';
import { toIssues } from './issues.js';
import { jsonLimitIssues } from './jsonLimits.js';
import type { OperationInfo, Parameter, SchemaObject, SpecIndex } from './openapi.js';

// ajv-formats is CommonJS; its default export arrives wrapped under ESM.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ??
  addFormatsModule) as unknown as (ajv: Ajv2020) => void;

export interface RequestParts {
  query: Record<string, unknown>;
  headers: Record<string, unknown>;
  params: Record<string, unknown>;
  body: unknown;
  /** Media type of the body as sent, without parameters, or undefined when there is none. */
  contentType: string | undefined;
  hasBody: boolean;
}

interface RequestValidators {
  query?: ValidateFunction;
  header?: ValidateFunction;
  path?: ValidateFunction;
  bodies: Map<string, ValidateFunction>;
  bodyRequired: boolean;
}

const OAS_FORMATS = ['int32', 'int64', 'float', 'double', 'byte', 'binary', 'password'];

/** An ajv for OpenAPI 3.1 schemas: 2020-12, OAS formats known, unknown keywords ignored. */
export function createAjv(coerce: boolean): Ajv2020 {
  const ajv = new Ajv2020({
    strict: false,
    allErrors: true,
    coerceTypes: coerce,
    // Parameters (the coercing instance) get their documented defaults filled in; bodies
    // are left as sent, since some body defaults are configurable (e.g. --user-token-ttl).
    useDefaults: coerce,
    logger: false,
    // Checking each schema against the 2020-12 meta-schema cost ~70 ms of start-up (and
    // blocked the first request). The schemas are the project's own documents, which
    // openapi.test.ts validates as OpenAPI 3.1, so the check would only ever repeat it.
    validateSchema: false,
  });
  addFormats(ajv);
  for (const f of OAS_FORMATS) ajv.addFormat(f, true);
  return ajv;
}

// Two ajv instances per process (each costs tens of ms to set up), shared by both documents:
// bodies are checked as sent; query, path and header values arrive as strings and are coerced
// (in place, so the handler sees numbers and defaults).
let shared: { body: Ajv2020; param: Ajv2020 } | undefined;
const sharedAjv = () => {
  shared ??= { body: createAjv(false), param: createAjv(true) };
  return shared;
};

/**
 * Validators compiled from one OpenAPI document, shared by the server (requests, and in tests
 * responses) and the contract suite (responses of any target). Each operation's validators are
 * compiled on first use and kept, so start-up does no compiling and no request compiles twice.
 *
 * Schema refs (`#/components/schemas/X`) are rewritten to an absolute id (`<name>#/$defs/X`)
 * registered once, so each compiled subschema resolves them without copying the document.
 */
export class SpecValidators {
  private readonly bodyAjv = sharedAjv().body;
  private readonly paramAjv = sharedAjv().param;
  private readonly requests = new Map<string, RequestValidators>();
  private readonly responses = new Map<string, ValidateFunction | null>();
  private readonly values = new WeakMap<object, ValidateFunction>();
  private readonly defsId: string;

  constructor(readonly spec: SpecIndex) {
    this.defsId = `urn:partner-sim:${spec.name}`;
    const schemas = (spec.doc.components?.schemas ?? {}) as Record<string, SchemaObject>;
    const defs = this.rewrite({ $id: this.defsId, $defs: schemas });
    this.bodyAjv.addSchema(defs);
    this.paramAjv.addSchema(defs);
  }

  private rewrite<T>(schema: T): T {
    return JSON.parse(
      JSON.stringify(schema).replaceAll('"#/components/schemas/', `"${this.defsId}#/$defs/`),
    ) as T;
  }

  private compile(ajv: Ajv2020, schema: unknown): ValidateFunction {
    return ajv.compile(this.rewrite(schema as object));
  }

  private paramValidator(params: Parameter[], where: string): ValidateFunction | undefined {
    const mine = params.filter((p) => p.in === where);
    if (mine.length === 0) return undefined;
    const key = (p: Parameter) => (where === 'header' ? p.name.toLowerCase() : p.name);
    const schema = {
      type: 'object',
      properties: Object.fromEntries(mine.map((p) => [key(p), p.schema ?? {}])),
      required: mine.filter((p) => p.required).map(key),
    };
    return this.compile(this.paramAjv, schema);
  }

  private requestValidators(op: OperationInfo): RequestValidators {
    let v = this.requests.get(op.id);
    if (v) return v;
    const rb = op.operation.requestBody
      ? this.spec.deref<{ required?: boolean; content?: Record<string, { schema?: unknown }> }>(
          op.operation.requestBody,
        )
      : undefined;
    const bodies = new Map<string, ValidateFunction>();
    for (const [media, content] of Object.entries(rb?.content ?? {})) {
      if (content.schema && /json|x-www-form-urlencoded/.test(media))
        bodies.set(media, this.compile(this.bodyAjv, content.schema));
    }
    v = {
      query: this.paramValidator(op.parameters, 'query'),
      header: this.paramValidator(op.parameters, 'header'),
      path: this.paramValidator(op.parameters, 'path'),
      bodies,
      bodyRequired: rb?.required === true,
    };
    this.requests.set(op.id, v);
    return v;
  }

  /** Every way the request breaks the operation's spec, FastAPI-style; empty when valid. */
  validateRequest(op: OperationInfo, parts: RequestParts): ValidationIssue[] {
    const v = this.requestValidators(op);
    const issues: ValidationIssue[] = [];
    const check = (fn: ValidateFunction | undefined, data: unknown, loc: string) => {
      if (fn && !fn(data)) issues.push(...toIssues(fn.errors ?? [], loc, data));
    };
    check(v.path, parts.params, 'path');
    check(v.query, parts.query, 'query');
    check(v.header, parts.headers, 'header');
    // After coercion: ajv turns "1e400" into Infinity and accepts it as an integer.
    issues.push(...jsonLimitIssues(parts.params, 'path'), ...jsonLimitIssues(parts.query, 'query'));
    if (v.bodies.size > 0) {
      if (!parts.hasBody) {
        if (v.bodyRequired) issues.push({ loc: ['body'], msg: 'Field required', type: 'missing' });
      } else {
        const fn = (parts.contentType && v.bodies.get(parts.contentType)) || v.bodies.values().next().value;
        const unstorable = jsonLimitIssues(parts.body, 'body');
        // Refused before the schema: ajv would take Infinity for an integer, and recurse into
        // (or let through) values nested too deep to ever be serialised again.
        if (unstorable.length > 0) issues.push(...unstorable);
        else check(fn, parts.body, 'body');
      }
    }
    return issues;
  }

  /**
   * Check any value against a schema written with this document's component refs (fixture
   * files), as request bodies are checked: issues located under `at`; empty when valid.
   * Each schema object is compiled once.
   */
  validateValue(schema: object, data: unknown, at: (string | number)[]): ValidationIssue[] {
    let fn = this.values.get(schema);
    if (!fn) {
      fn = this.compile(this.bodyAjv, schema);
      this.values.set(schema, fn);
    }
    if (fn(data)) return [];
    return toIssues(fn.errors ?? [], '', data).map((i) => ({ ...i, loc: [...at, ...i.loc.slice(1)] }));
  }

  /**
   * Check a JSON response against the operation's declared response. Returns human-readable
   * violations naming the field (empty when it conforms).
   */
  validateResponse(
    op: OperationInfo,
    status: number,
    contentType: string | undefined,
    body: unknown,
  ): string[] {
    const resp = this.spec.response(op, status);
    if (!resp) return [`${op.id}: status ${status} is not declared in ${this.spec.name}`];
    const content = resp.content ?? {};
    const medias = Object.keys(content);
    if (medias.length === 0) {
      return body === undefined || body === ''
        ? []
        : [`${op.id} ${status}: the spec declares no body, but one was sent`];
    }
    const media = contentType?.split(';')[0]?.trim().toLowerCase();
    if (
      !media ||
      !medias.some((m) => m === media || (m.endsWith('/*') && media.startsWith(m.slice(0, -1))))
    ) {
      return [`${op.id} ${status}: content type ${media ?? '(none)'} is not one of ${medias.join(', ')}`];
    }
    if (!media.includes('json')) return [];
    const key = `${op.id}:${status}`;
    let fn = this.responses.get(key);
    if (fn === undefined) {
      const schema = content[media]?.schema;
      fn = schema ? this.compile(this.bodyAjv, schema) : null;
      this.responses.set(key, fn);
    }
    if (!fn || fn(body)) return [];
    return formatErrors(fn.errors ?? [], `${op.id} ${status} response body`);
  }
}

export function formatErrors(errors: ErrorObject[], prefix: string): string[] {
  return errors.map((e) => {
    const field =
      e.keyword === 'required'
        ? `${e.instancePath}/${(e.params as { missingProperty: string }).missingProperty}`
        : e.instancePath || '/';
    return `${prefix}: ${field} ${e.message ?? 'is invalid'}`;
  });
}

const cache = new Map<SpecIndex, SpecValidators>();

/** The validators of a document, created once per process. */
export function validatorsFor(spec: SpecIndex): SpecValidators {
  let v = cache.get(spec);
  if (!v) {
    v = new SpecValidators(spec);
    cache.set(spec, v);
  }
  return v;
}
