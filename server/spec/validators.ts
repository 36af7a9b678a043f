import { createRequire } from 'node:module';
import type { Ajv2020, ValidateFunction } from 'ajv/dist/2020.js';
import type { ValidationIssue } from '../core/errors.js';
import { createAjv, sharedAjv } from './ajv.js';
import { toIssues } from './issues.js';
import {
  type OperationInfo,
  type Parameter,
  type SchemaObject,
  type SpecIndex,
  sha256,
  specCachePath,
} from './openapi.js';
import { type RequestParts, type RequestValidators, requestIssues } from './requestIssues.js';
import { formatErrors } from './responseErrors.js';

// The build's compiled validators, and ajv's standalone writer, are CommonJS.
const require = createRequire(import.meta.url);

/** Where the build writes a document's compiled request validators. */
export const prebuiltPath = (spec: SpecIndex): string =>
  specCachePath(`${spec.name}.validators`).replace(/\.json$/, '.cjs');

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
  private readonly defsId: string;
  private built: Record<string, ValidateFunction> | null | undefined;

  /** `usePrebuilt: false` compiles everything here (a test compares both ways). */
  constructor(
    readonly spec: SpecIndex,
    usePrebuilt = true,
  ) {
    this.defsId = `urn:partner-sim:${spec.name}`;
    if (!usePrebuilt) this.built = null;
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

  private rewrite<T>(schema: T): T {
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

  private requestBody(op: OperationInfo) {
    return op.operation.requestBody
      ? this.spec.deref<{ required?: boolean; content?: Record<string, { schema?: unknown }> }>(
          op.operation.requestBody,
        )
      : undefined;
  }

  /** The build's compiled request validators, when they were built from this very document. */
  private prebuilt(): Record<string, ValidateFunction> | null {
    if (this.built !== undefined) return this.built;
    try {
      const mod = require(prebuiltPath(this.spec)) as {
        sha256: string;
        validators: Record<string, ValidateFunction>;
      };
      this.built = mod.sha256 === sha256(this.spec.source) ? mod.validators : null;
    } catch {
      this.built = null; // no build (tests from source): compile on first use
    }
    return this.built;
  }

  private requestValidators(op: OperationInfo): RequestValidators {
    let v = this.requests.get(op.id);
    if (v) return v;
    const built = this.prebuilt();
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

  /**
   * Source of a CommonJS module holding every request validator of this document, compiled
   * now (the build writes it next to the spec cache; see prebuilt()).
   */
  standaloneModule(): string {
    const { default: standaloneCode } = require('ajv/dist/standalone') as {
      default: (ajv: Ajv2020, refs: Record<string, string>) => string;
    };
    const parts: string[] = [];
    for (const kind of ['param', 'body'] as const) {
      const ajv = createAjv(kind === 'param', true);
      const schemas = (this.spec.doc.components?.schemas ?? {}) as Record<string, SchemaObject>;
      ajv.addSchema(this.rewrite({ $id: this.defsId, $defs: schemas }));
      const refs: Record<string, string> = {};
      for (const op of this.spec.operations.values()) {
        for (const s of this.requestSchemas(op)) {
          if (s.kind !== kind) continue;
          const id = `urn:partner-sim:request:${encodeURIComponent(s.key)}`;
          ajv.addSchema({ ...this.rewrite(s.schema), $id: id });
          refs[s.key] = id;
        }
      }
      // Each kind's code in its own function scope: the two modules' names would collide.
      parts.push(`(function(exports){${standaloneCode(ajv, refs)}})(validators);`);
    }
    return `"use strict";\nconst validators = {};\n${parts.join('\n')}\nmodule.exports = { sha256: ${JSON.stringify(sha256(this.spec.source))}, validators };\n`;
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
      fn = schema ? this.compile('body', schema) : null;
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
