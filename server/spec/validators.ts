import { createRequire } from 'node:module';
import type { Ajv2020, ValidateFunction } from 'ajv/dist/2020.js';
import type { ValidationIssue } from '../core/errors.js';
import { sharedAjv } from './ajv.js';
import { toIssues } from './issues.js';
import {
  type OperationInfo,
  type Parameter,
  type ResponseObject,
  type SchemaObject,
  type SpecIndex,
  sha256,
  specCachePath,
} from './openapi.js';
import { type RequestParts, type RequestValidators, requestIssues } from './requestIssues.js';
import { formatErrors } from './responseErrors.js';

// The build's compiled validators, and ajv's standalone writer, are CommonJS.
const require = createRequire(import.meta.url);

/** What the build compiles ahead: request validators (loaded at start), response ones (at first check). */
export type PrebuiltPart = 'requests' | 'responses';

/** Where the build writes a document's compiled validators of one part. */
export const prebuiltPath = (spec: SpecIndex, part: PrebuiltPart = 'requests'): string =>
  specCachePath(`${spec.name}.${part === 'requests' ? 'validators' : 'responses'}`).replace(
    /\.json$/,
    '.cjs',
  );

/**
 * Validators compiled from one OpenAPI document, shared by the server (requests, and in tests
 * responses) and the contract suite (responses of any target). Each operation's validators are
 * compiled on first use and kept, so start-up does no compiling and no request compiles twice.
 *
 * Schema refs (`#/components/schemas/X`) are rewritten to an absolute id (`<name>#/$defs/X`)
 * registered once, so each compiled subschema resolves them without copying the document.
 */
export class SpecValidators {
  private ajvs: { body: Ajv2020; param: Ajv2020 } | undefined;
  private readonly requests = new Map<string, RequestValidators>();
  private readonly responses = new Map<string, ValidateFunction | null>();
  private readonly values = new WeakMap<object, ValidateFunction>();
  /** The id the document's components are registered under (refs are rewritten to it). */
  readonly defsId: string;
  private readonly built = new Map<PrebuiltPart, Record<string, ValidateFunction> | null>();

  /** `usePrebuilt: false` compiles everything here (a test compares both ways). */
  constructor(
    readonly spec: SpecIndex,
    usePrebuilt = true,
  ) {
    this.defsId = `urn:partner-sim:${spec.name}`;
    if (!usePrebuilt) for (const part of ['requests', 'responses'] as const) this.built.set(part, null);
  }

  /** The shared ajv instances, this document's components registered in them (once). */
  private ajv(kind: 'body' | 'param'): Ajv2020 {
    if (!this.ajvs) {
      this.ajvs = sharedAjv();
      if (!this.ajvs.body.getSchema(this.defsId)) {
        const schemas = (this.spec.doc.components?.schemas ?? {}) as Record<string, SchemaObject>;
        const defs = this.rewrite({ $id: this.defsId, $defs: schemas });
        this.ajvs.body.addSchema(defs);
        this.ajvs.param.addSchema(defs);
      }
    }
    return this.ajvs[kind];
  }

  /** A schema with its component refs pointing at defsId. */
  rewrite<T>(schema: T): T {
    return JSON.parse(
      JSON.stringify(schema).replaceAll('"#/components/schemas/', `"${this.defsId}#/$defs/`),
    ) as T;
  }

  private compile(kind: 'body' | 'param', schema: unknown): ValidateFunction {
    return this.ajv(kind).compile(this.rewrite(schema as object));
  }

  /**
   * What each part of a request is checked against, keyed `<opId> <part>` (`body <media>` for
   * bodies): parameters coerced (`param`), bodies as sent (`body`). Compiled on first use at
   * run time, or ahead of time by the build (buildSpecCache.ts), from this one description.
   */
  requestSchemas(op: OperationInfo): { key: string; kind: 'body' | 'param'; schema: object }[] {
    const out: { key: string; kind: 'body' | 'param'; schema: object }[] = [];
    for (const where of ['path', 'query', 'header']) {
      const mine = op.parameters.filter((p) => p.in === where);
      if (mine.length === 0) continue;
      const key = (p: Parameter) => (where === 'header' ? p.name.toLowerCase() : p.name);
      const schema = {
        type: 'object',
        properties: Object.fromEntries(mine.map((p) => [key(p), p.schema ?? {}])),
        required: mine.filter((p) => p.required).map(key),
      };
      out.push({ key: `${op.id} ${where}`, kind: 'param', schema });
    }
    for (const [media, content] of Object.entries(this.requestBody(op)?.content ?? {})) {
      if (content.schema && /json|x-www-form-urlencoded/.test(media))
        out.push({ key: `${op.id} body ${media}`, kind: 'body', schema: content.schema as object });
    }
    return out;
  }

  /**
   * What each JSON response is checked against, keyed `<opId> <declared status> <media>`:
   * compiled on first check, or ahead of time by the build, from this one description.
   */
  responseSchemas(op: OperationInfo): { key: string; schema: object }[] {
    const out: { key: string; schema: object }[] = [];
    for (const [status, ref] of Object.entries(op.operation.responses ?? {})) {
      const content = this.spec.deref<ResponseObject>(ref).content ?? {};
      for (const [media, c] of Object.entries(content)) {
        if (c.schema && media.includes('json'))
          out.push({ key: `${op.id} ${status} ${media}`, schema: c.schema });
      }
    }
    return out;
  }

  private requestBody(op: OperationInfo) {
    return op.operation.requestBody
      ? this.spec.deref<{ required?: boolean; content?: Record<string, { schema?: unknown }> }>(
          op.operation.requestBody,
        )
      : undefined;
  }

  /** The build's compiled validators of a part, when they were built from this very document. */
  private prebuilt(part: PrebuiltPart): Record<string, ValidateFunction> | null {
    let built = this.built.get(part);
    if (built !== undefined) return built;
    try {
      const mod = require(prebuiltPath(this.spec, part)) as {
        sha256: string;
        validators: Record<string, ValidateFunction>;
      };
      built = mod.sha256 === sha256(this.spec.source) ? mod.validators : null;
    } catch {
      built = null; // no build (tests from source): compile on first use
    }
    this.built.set(part, built);
    return built;
  }

  private requestValidators(op: OperationInfo): RequestValidators {
    let v = this.requests.get(op.id);
    if (v) return v;
    const built = this.prebuilt('requests');
    v = { bodies: new Map(), bodyRequired: this.requestBody(op)?.required === true };
    for (const { key, kind, schema } of this.requestSchemas(op)) {
      const fn = built?.[key] ?? this.compile(kind, schema);
      const part = key.slice(op.id.length + 1);
      if (part.startsWith('body ')) v.bodies.set(part.slice(5), fn);
      else v[part as 'path' | 'query' | 'header'] = fn;
    }
    this.requests.set(op.id, v);
    return v;
  }

  /** Every way the request breaks the operation's spec, FastAPI-style; empty when valid. */
  validateRequest(op: OperationInfo, parts: RequestParts): ValidationIssue[] {
    const v = this.requestValidators(op);
    return requestIssues(v, parts);
  }

  /**
   * Check any value against a schema written with this document's component refs (fixture
   * files), as request bodies are checked: issues located under `at`; empty when valid.
   * Each schema object is compiled once.
   */
  validateValue(schema: object, data: unknown, at: (string | number)[]): ValidationIssue[] {
    let fn = this.values.get(schema);
    if (!fn) {
      fn = this.compile('body', schema);
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
    const declared = this.spec.responseKey(op, status);
    if (declared === undefined) return [`${op.id}: status ${status} is not declared in ${this.spec.name}`];
    const resp = this.spec.deref<ResponseObject>(op.operation.responses![declared]);
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
    const key = `${op.id} ${declared} ${media}`;
    let fn = this.responses.get(key);
    if (fn === undefined) {
      const schema = content[media]?.schema;
      fn = schema ? (this.prebuilt('responses')?.[key] ?? this.compile('body', schema)) : null;
      this.responses.set(key, fn);
    }
    if (!fn || fn(body)) return [];
    return formatErrors(fn.errors ?? [], `${op.id} ${status} response body`);
  }
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
