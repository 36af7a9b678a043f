import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename } from 'node:path';
import type { OpenAPIV3_1 } from 'openapi-types';
import { fromRoot } from '../core/root.js';

type HttpMethod = 'get' | 'put' | 'post' | 'delete' | 'options' | 'head' | 'patch' | 'trace';
const METHODS: HttpMethod[] = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

export type Doc = OpenAPIV3_1.Document;
type Operation = OpenAPIV3_1.OperationObject;
export type Parameter = OpenAPIV3_1.ParameterObject;
export type ResponseObject = OpenAPIV3_1.ResponseObject;
export type SchemaObject = OpenAPIV3_1.SchemaObject;

/** One operation of a document, with everything the HTTP layer needs precomputed. */
export interface OperationInfo {
  id: string;
  method: HttpMethod;
  /** Path as written in the document, e.g. `/open/partner/ai/transcriptions/{transcription_id}`. */
  path: string;
  /** The same path in Express syntax, e.g. `/open/partner/ai/transcriptions/:transcription_id`. */
  expressPath: string;
  operation: Operation;
  parameters: Parameter[];
  /** True when the path item overrides `servers`: it lives on the storage host. */
  storage: boolean;
  security: OpenAPIV3_1.SecurityRequirementObject[];
  extension: boolean;
}

/** A loaded OpenAPI document and its operations by operationId. Loaded once per process. */
export class SpecIndex {
  readonly operations = new Map<string, OperationInfo>();

  constructor(
    readonly name: string,
    readonly doc: Doc,
    readonly source: string,
  ) {
    for (const [path, item] of Object.entries(doc.paths ?? {})) {
      if (!item) continue;
      const shared = (item.parameters ?? []).map((p) => this.deref<Parameter>(p));
      for (const method of METHODS) {
        const op = item[method];
        if (!op?.operationId) continue;
        const own = (op.parameters ?? []).map((p) => this.deref<Parameter>(p));
        const params = [
          ...shared.filter((s) => !own.some((o) => o.name === s.name && o.in === s.in)),
          ...own,
        ];
        this.operations.set(op.operationId, {
          id: op.operationId,
          method,
          path,
          expressPath: path.replace(/\{([^}]+)\}/g, ':$1'),
          operation: op,
          parameters: params,
          storage: Array.isArray(item.servers) && item.servers.length > 0,
          security: op.security ?? doc.security ?? [],
          extension: (op as Record<string, unknown>)['x-sim-extension'] === true,
        });
      }
    }
  }

  static load(name: string, file: string): SpecIndex {
    const source = readFileSync(file, 'utf8');
    return new SpecIndex(name, cachedParse(file, source), source);
  }

  get(id: string): OperationInfo {
    const op = this.operations.get(id);
    if (!op) throw new Error(`${this.name}: no operation ${id}`);
    return op;
  }

  /** Follow a local `$ref` (`#/components/...`) to the object it names. */
  deref<T>(obj: unknown): T {
    let cur = obj as { $ref?: string } | undefined;
    for (let hops = 0; cur && typeof cur.$ref === 'string' && hops < 16; hops++) {
      const ref: string = cur.$ref;
      if (!ref.startsWith('#/')) throw new Error(`${this.name}: only local refs are supported: ${ref}`);
      let node: unknown = this.doc;
      for (const raw of ref.slice(2).split('/')) {
        const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
        node = (node as Record<string, unknown> | undefined)?.[key];
      }
      if (node === undefined) throw new Error(`${this.name}: dangling ref ${ref}`);
      cur = node as { $ref?: string };
    }
    return cur as T;
  }

  /** Which declared response answers a status: exact code, then `4XX`-style range, then `default`. */
  responseKey(op: OperationInfo, status: number): string | undefined {
    const rs = op.operation.responses ?? {};
    return [String(status), `${String(status)[0]}XX`, 'default'].find((k) => rs[k] !== undefined);
  }

  /** The response object for a status (see responseKey). */
  response(op: OperationInfo, status: number): ResponseObject | undefined {
    const key = this.responseKey(op, status);
    return key === undefined ? undefined : this.deref<ResponseObject>(op.operation.responses![key]);
  }
}

/** Where `npm run build` leaves the parsed documents (see buildSpecCache.ts). */
export const specCachePath = (file: string): string =>
  fromRoot('dist', 'spec-cache', `${basename(file)}.json`);
export const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');

/**
 * Parsing the YAML costs ~150 ms, half the start-up budget, so the build stores the parsed
 * document as JSON next to the hash of the YAML it came from. The cache is used only when the
 * hash matches, so an edited openapi.yaml is never shadowed by a stale build.
 */
function cachedParse(file: string, source: string): Doc {
  try {
    const cache = JSON.parse(readFileSync(specCachePath(file), 'utf8')) as { sha256: string; doc: Doc };
    if (cache.sha256 === sha256(source)) return cache.doc;
  } catch {
    // no cache (fresh clone before build, or tests from source): parse below
  }
  const { parse } = createRequire(import.meta.url)('yaml') as typeof import('yaml');
  return parse(source) as Doc;
}

let api: SpecIndex | undefined;
let admin: SpecIndex | undefined;
let device: SpecIndex | undefined;

/** The partner API document (openapi.yaml). */
export function apiSpec(): SpecIndex {
  api ??= SpecIndex.load('openapi.yaml', fromRoot('openapi.yaml'));
  return api;
}

/** The control API document (server/admin.openapi.yaml). */
export function adminSpec(): SpecIndex {
  admin ??= SpecIndex.load('admin.openapi.yaml', fromRoot('server', 'admin.openapi.yaml'));
  return admin;
}

/** The device protocol document (server/device.openapi.yaml). */
export function deviceSpec(): SpecIndex {
  device ??= SpecIndex.load('device.openapi.yaml', fromRoot('server', 'device.openapi.yaml'));
  return device;
}
