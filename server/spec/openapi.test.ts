import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';

// Structural checks of the two OpenAPI documents every other layer is derived from.

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

type Json = Record<string, unknown>;
interface Op {
  id: string;
  method: string;
  path: string;
  op: Json;
  pathItem: Json;
}

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

function load(rel: string): Json {
  return parse(readFileSync(resolve(root, rel), 'utf8')) as Json;
}

function operations(doc: Json): Op[] {
  const out: Op[] = [];
  for (const [path, item] of Object.entries((doc.paths ?? {}) as Record<string, Json>)) {
    for (const method of METHODS) {
      const op = item[method] as Json | undefined;
      if (op) out.push({ id: String(op.operationId), method, path, op, pathItem: item });
    }
  }
  return out;
}

function deref(doc: Json, node: unknown): Json {
  let cur = node as Json;
  for (let i = 0; i < 16 && cur && typeof cur.$ref === 'string'; i++) {
    const ref = cur.$ref as string;
    expect(ref.startsWith('#/'), `only local refs: ${ref}`).toBe(true);
    let next: unknown = doc;
    for (const raw of ref.slice(2).split('/')) {
      next = (next as Json | undefined)?.[raw.replace(/~1/g, '/').replace(/~0/g, '~')];
    }
    expect(next, `dangling ref ${ref}`).toBeDefined();
    cur = next as Json;
  }
  return cur;
}

function allRefs(node: unknown, out: string[] = []): string[] {
  if (Array.isArray(node)) for (const n of node) allRefs(n, out);
  else if (node && typeof node === 'object') {
    for (const [k, v] of Object.entries(node)) {
      if (k === '$ref' && typeof v === 'string') out.push(v);
      else allRefs(v, out);
    }
  }
  return out;
}

// ajv-formats is CommonJS; its default export arrives wrapped under ESM.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ??
  addFormatsModule) as unknown as (ajv: Ajv2020) => void;

/** Compiles schemas of a document, resolving `#/components/schemas/X` refs. */
function schemaCompiler(name: string, doc: Json): (schema: unknown) => ValidateFunction {
  const ajv = new Ajv2020({ strict: false, allErrors: true, logger: false });
  addFormats(ajv);
  for (const f of ['int32', 'int64', 'float', 'double', 'byte', 'binary', 'password']) ajv.addFormat(f, true);
  const id = `urn:openapi-test:${name}`;
  const rewrite = (s: unknown) =>
    JSON.parse(JSON.stringify(s).replaceAll('"#/components/schemas/', `"${id}#/$defs/`)) as Json;
  const components = (doc.components ?? {}) as Json;
  ajv.addSchema(rewrite({ $id: id, $defs: components.schemas ?? {} }));
  return (schema) => ajv.compile(rewrite(schema));
}

/** Every JSON/form example of request bodies and responses, with the schema it illustrates. */
function mediaExamples(doc: Json): { where: string; schema: unknown; value: unknown }[] {
  const out: { where: string; schema: unknown; value: unknown }[] = [];
  const visit = (where: string, contentOwner: Json | undefined) => {
    const content = (contentOwner?.content ?? {}) as Record<string, Json>;
    for (const [media, mt] of Object.entries(content)) {
      if (!/json|x-www-form-urlencoded/.test(media) || !mt.schema) continue;
      if ('example' in mt)
        out.push({ where: `${where} ${media} example`, schema: mt.schema, value: mt.example });
      for (const [name, ex] of Object.entries((mt.examples ?? {}) as Record<string, Json>)) {
        out.push({
          where: `${where} ${media} examples.${name}`,
          schema: mt.schema,
          value: deref(doc, ex).value,
        });
      }
    }
  };
  for (const o of operations(doc)) {
    if (o.op.requestBody) visit(`${o.id} request`, deref(doc, o.op.requestBody));
    for (const [status, r] of Object.entries((o.op.responses ?? {}) as Json)) {
      visit(`${o.id} ${status}`, deref(doc, r));
    }
  }
  return out;
}

/** Every schema node carrying a JSON Schema `examples` array. */
function schemaExamples(node: unknown, where: string, out: { where: string; schema: Json }[] = []) {
  if (Array.isArray(node)) {
    for (const [i, n] of node.entries()) schemaExamples(n, `${where}/${i}`, out);
  } else if (node && typeof node === 'object') {
    const obj = node as Json;
    if (Array.isArray(obj.examples)) out.push({ where, schema: obj });
    for (const [k, v] of Object.entries(obj)) schemaExamples(v, `${where}/${k}`, out);
  }
  return out;
}

const API_OPS = [
  'getPartnerToken',
  'refreshPartnerToken',
  'createUserToken',
  'getDeviceBinding',
  'signDeviceSerial',
  'bindDevice',
  'unbindDevice',
  'generatePresignedUrls',
  'uploadPart',
  'uploadPartPreflight',
  'completeUpload',
  'downloadFile',
  'headFile',
  'createTranscription',
  'getTranscription',
];
const API_EXTENSIONS = [
  'refreshPartnerToken',
  'signDeviceSerial',
  'bindDevice',
  'unbindDevice',
  'uploadPartPreflight',
  'downloadFile',
  'headFile',
];
const STORAGE_OPS = ['uploadPart', 'uploadPartPreflight', 'downloadFile', 'headFile'];
const ADMIN_OPS = [
  'resetState',
  'listApps',
  'createPartnerApp',
  'getClock',
  'setClock',
  'listDevices',
  'putDevice',
  'getDevice',
  'deleteDevice',
  'listTranscriptions',
  'forceTranscription',
  'createFault',
  'listFaults',
  'clearFaults',
  'deleteFault',
  'listRequests',
  'clearRequests',
  'getHealth',
  'getAdminSpec',
];

const docs = [
  { name: 'openapi.yaml', doc: load('openapi.yaml'), required: API_OPS },
  { name: 'server/admin.openapi.yaml', doc: load('server/admin.openapi.yaml'), required: ADMIN_OPS },
];

describe.each(docs)('$name', ({ name, doc, required }) => {
  it('is a valid OpenAPI 3.1.0 document', async () => {
    expect(doc.openapi).toBe('3.1.0');
    const result = await new Validator().validate(doc);
    expect(result.errors, JSON.stringify(result.errors, null, 2)).toBeUndefined();
    expect(result.valid).toBe(true);
  });

  it('declares every required operationId exactly once, and no other', () => {
    const ids = operations(doc).map((o) => o.id);
    for (const id of required)
      expect(
        ids.filter((x) => x === id),
        id,
      ).toHaveLength(1);
    expect([...ids].sort()).toEqual([...required].sort());
  });

  it('gives every operation a summary, a description and at least one 2xx response', () => {
    for (const o of operations(doc)) {
      expect(typeof o.op.summary, `${o.id} summary`).toBe('string');
      expect(typeof o.op.description, `${o.id} description`).toBe('string');
      const statuses = Object.keys((o.op.responses ?? {}) as Json);
      expect(
        statuses.some((s) => /^2(\d\d|XX)$/.test(s)),
        `${o.id} has no 2xx response`,
      ).toBe(true);
    }
  });

  it('resolves every local $ref', () => {
    const refs = allRefs(doc);
    expect(refs.length).toBeGreaterThan(10);
    for (const ref of refs) deref(doc, { $ref: ref });
  });

  it('answers every 422 with ValidationError', () => {
    let seen = 0;
    for (const o of operations(doc)) {
      const r = (o.op.responses as Json)['422'];
      if (!r) continue;
      seen++;
      const schema = (deref(doc, r).content as Record<string, Json>)['application/json']?.schema as Json;
      expect(schema?.$ref, `${o.id} 422`).toBe('#/components/schemas/ValidationError');
    }
    expect(seen).toBeGreaterThan(5);
  });

  it('declares 422 on every operation with a JSON request body', () => {
    for (const o of operations(doc)) {
      if (!o.op.requestBody) continue;
      const content = deref(doc, o.op.requestBody).content as Json;
      if (!Object.keys(content).some((m) => m.includes('json'))) continue;
      expect(Object.keys(o.op.responses as Json), o.id).toContain('422');
    }
  });

  it('has JSON examples that conform to their schemas', () => {
    const compile = schemaCompiler(name, doc);
    const examples = mediaExamples(doc);
    expect(examples.length).toBeGreaterThan(10);
    for (const ex of examples) {
      const validate = compile(ex.schema);
      expect(validate(ex.value), `${ex.where}: ${JSON.stringify(validate.errors)}`).toBe(true);
    }
  });

  it('has schema `examples` that conform to the schema carrying them', () => {
    const compile = schemaCompiler(name, doc);
    const nodes = schemaExamples(doc, '#');
    expect(nodes.length).toBeGreaterThan(5);
    for (const { where, schema } of nodes) {
      const validate = compile(schema);
      for (const value of schema.examples as unknown[]) {
        expect(validate(value), `${where} ${JSON.stringify(value)}: ${JSON.stringify(validate.errors)}`).toBe(
          true,
        );
      }
    }
  });
});

describe('openapi.yaml specifics', () => {
  const doc = docs[0]!.doc;
  const ops = new Map(operations(doc).map((o) => [o.id, o]));
  const schemas = (doc.components as Json).schemas as Record<string, Json>;
  const compile = schemaCompiler('api-specifics', doc);

  it('has the documented info and servers', () => {
    const info = doc.info as Json;
    expect(info.title).toBe('Partner API (as simulated by partner-sim)');
    expect(info.version).toBe('0.0.1');
    expect(String(info.description)).toContain('x-sim-extension: true');
    const servers = doc.servers as Json[];
    expect(servers.map((s) => s.url)).toEqual([
      'https://platform-us.plaud.ai/developer/api',
      'https://platform-jp.plaud.ai/developer/api',
      'http://127.0.0.1:4010/developer/api',
      'http://127.0.0.1:4010/jp/developer/api',
    ]);
    for (const s of servers) expect(typeof s.description).toBe('string');
  });

  it('marks exactly the extension operations with x-sim-extension: true', () => {
    for (const [id, o] of ops) {
      if (API_EXTENSIONS.includes(id)) expect(o.op['x-sim-extension'], id).toBe(true);
      else expect(o.op['x-sim-extension'], id).toBeUndefined();
    }
  });

  it('lets is_bind be null, true or false, and nothing else', () => {
    const isBind = (schemas.BindingResponse!.properties as Json).is_bind as Json;
    expect(isBind.type).toEqual(expect.arrayContaining(['boolean', 'null']));
    expect(schemas.BindingResponse!.required).toEqual(expect.arrayContaining(['is_bind', 'bind_history']));
    const validate = compile({ $ref: '#/components/schemas/BindingResponse' });
    for (const v of [null, true, false])
      expect(validate({ is_bind: v, bind_history: [] }), String(v)).toBe(true);
    expect(validate({ is_bind: 'yes', bind_history: [] })).toBe(false);
    expect(validate({ bind_history: [] })).toBe(false);
  });

  it('answers an unknown device with a bare 404 and documents version 0.0.1', () => {
    const op = ops.get('getDeviceBinding')!.op;
    const r404 = (op.responses as Json)['404'] as Json;
    expect(r404.$ref).toBeUndefined();
    expect(typeof r404.description).toBe('string');
    expect(r404.content).toBeUndefined();
    expect(String(op.description)).toContain('version 0.0.1');
    const params = (op.parameters as Json[]).map((p) => deref(doc, p));
    expect(
      params
        .filter((p) => p.required === true)
        .map((p) => p.name)
        .sort(),
    ).toEqual(['sn', 'type']);
  });

  it('puts storage operations on the storage hosts without security', () => {
    for (const id of STORAGE_OPS) {
      const o = ops.get(id)!;
      const urls = (o.pathItem.servers as Json[]).map((s) => s.url);
      expect(urls, id).toEqual(['http://127.0.0.1:4010/storage', 'https://{bucket}.s3.amazonaws.com']);
      expect(o.op.security, id).toEqual([]);
    }
    for (const [id, o] of ops) if (!STORAGE_OPS.includes(id)) expect(o.pathItem.servers, id).toBeUndefined();
    const put = (ops.get('uploadPart')!.op.responses as Json)['200'] as Json;
    expect(deref(doc, (put.headers as Json).ETag).required).toBe(true);
    for (const status of ['400', '403', '404']) {
      const r = deref(doc, (ops.get('uploadPart')!.op.responses as Json)[status]);
      expect(Object.keys(r.content as Json), status).toEqual(['application/xml']);
    }
  });

  it('secures the other operations as documented', () => {
    const expected: Record<string, Json[]> = {
      getPartnerToken: [{ basicAuth: [] }],
      refreshPartnerToken: [{ basicAuth: [] }],
      createUserToken: [{ partnerBearer: [] }],
      getDeviceBinding: [{ userBearer: [] }],
      signDeviceSerial: [{ userBearer: [] }],
      bindDevice: [{ userBearer: [] }],
      unbindDevice: [{ userBearer: [] }],
      generatePresignedUrls: [{ userBearer: [] }],
      completeUpload: [{ userBearer: [] }],
      createTranscription: [{ clientId: [], clientApiKey: [] }],
      getTranscription: [{ clientId: [], clientApiKey: [] }],
    };
    for (const [id, sec] of Object.entries(expected)) expect(ops.get(id)!.op.security, id).toEqual(sec);
    expect(ops.has('createTranscription') && ops.get('createTranscription')!.path).toBe(
      '/open/partner/ai/transcriptions/',
    );
  });

  it('uses the Error schema for every non-422 JSON error response', () => {
    for (const [id, o] of ops) {
      for (const [status, r] of Object.entries(o.op.responses as Json)) {
        if (!/^[45]/.test(status) || status === '422') continue;
        const json = ((deref(doc, r).content ?? {}) as Record<string, Json>)['application/json'];
        if (json) expect((json.schema as Json).$ref, `${id} ${status}`).toBe('#/components/schemas/Error');
      }
    }
  });

  it('sends Retry-After with 429', () => {
    const r = deref(doc, (ops.get('getPartnerToken')!.op.responses as Json)['429']);
    const h = deref(doc, (r.headers as Json)['Retry-After']);
    expect((h.schema as Json).type).toBe('integer');
  });

  it('ties the transcription data to the status', () => {
    const validate = compile({ $ref: '#/components/schemas/TranscriptionTask' });
    const result = {
      text: 'hi',
      language: 'en-US',
      duration: 1,
      segments: [{ start: 0, end: 1, text: 'hi', speaker: 'Speaker 1' }],
    };
    const live = {
      results: [
        { start: 0, end: 1, text: 'hi', speaker_id: 'S0', language: 'en', language_probability: 0.9 },
      ],
    };
    expect(validate({ transcription_id: 't', status: 'PENDING', data: {} })).toBe(true);
    expect(validate({ transcription_id: 't', status: 'SUCCESS', data: result })).toBe(true);
    expect(validate({ transcription_id: 't', status: 'SUCCESS', data: live })).toBe(true);
    expect(validate({ transcription_id: 't', status: 'SUCCESS', data: {} })).toBe(false);
    expect(validate({ transcription_id: 't', status: 'PROGRESS', data: result })).toBe(false);
    expect(validate({ transcription_id: 't', status: 'FAILED', data: {} })).toBe(false);
    expect(validate({ transcription_id: 't', status: 'FAILURE', data: {}, message: 'boom' })).toBe(true);
  });

  it('validates the request bodies as documented', () => {
    const userToken = compile({ $ref: '#/components/schemas/UserTokenRequest' });
    expect(userToken({ user_id: 'abcdef' })).toBe(true);
    expect(userToken({ user_id: 'abcde' })).toBe(false);
    expect(userToken({ user_id: 'a'.repeat(121) })).toBe(false);
    expect(userToken({ user_id: 'abcdef', expires_in: 0 })).toBe(false);
    const device = compile({ $ref: '#/components/schemas/DeviceRef' });
    expect(device({ type: 'notepro', sn: '881ABC123' })).toBe(true);
    expect(device({ type: 'notepro', sn: '880ABC123' })).toBe(false);
    expect(device({ type: 'notepin', sn: '882ABC123' })).toBe(false);
    const partnerToken = compile({ $ref: '#/components/schemas/PartnerTokenRequest' });
    expect(partnerToken({})).toBe(true);
    expect(partnerToken({ grant_type: 'client_credentials', other: 'x' })).toBe(true);
    const tx = compile({ $ref: '#/components/schemas/TranscriptionRequest' });
    expect(tx({ file_url: 'https://example.com/a.mp3' })).toBe(true);
    expect(tx({ file_url: 'ftp://example.com/a.mp3' })).toBe(false);
    expect(
      tx({ file_url: 'https://example.com/a.mp3', params: { vad: { decode_silence: true, x: 1 } } }),
    ).toBe(false);
    const presign = compile({ $ref: '#/components/schemas/PresignRequest' });
    expect(presign({ filesize: 5368709120, filetype: 'mp3' })).toBe(true);
    expect(presign({ filesize: 5368709121, filetype: 'mp3' })).toBe(false);
    expect(presign({ filesize: 10, filetype: 'exe' })).toBe(false);
    const complete = compile({ $ref: '#/components/schemas/CompleteUploadRequest' });
    const base = {
      file_id: 'f',
      upload_id: 'u',
      filetype: 'mp3',
      part_list: [{ PartNumber: 1, ETag: '"abc"' }],
    };
    expect(complete(base)).toBe(true);
    expect(complete({ ...base, part_list: [] })).toBe(false);
    expect(complete({ ...base, file_md5: 'ABC' })).toBe(false);
  });

  it('accepts all three error body shapes and rejects others', () => {
    const err = compile({ $ref: '#/components/schemas/Error' });
    expect(err({ detail: 'CLIENT_NOT_FOUND' })).toBe(true);
    expect(err({ detail: 'DEVICE_BOUND', message: 'x' })).toBe(true);
    expect(err({ code: 403, message: 'DEVICE_BOUND' })).toBe(true);
    expect(err({ message: 'x' })).toBe(false);
    const ve = compile({ $ref: '#/components/schemas/ValidationError' });
    expect(ve({ detail: [{ loc: ['body', 'user_id'], msg: 'm', type: 'missing' }] })).toBe(true);
    expect(ve({ detail: [] })).toBe(false);
    expect(ve({ detail: 'CLIENT_NOT_FOUND' })).toBe(false);
  });
});

describe('server/admin.openapi.yaml specifics', () => {
  const doc = docs[1]!.doc;
  const schemas = (doc.components as Json).schemas as Record<string, Json>;
  const compile = schemaCompiler('admin-specifics', doc);

  it('is mounted under /__admin with an optional admin token', () => {
    expect((doc.servers as Json[]).map((s) => s.url)).toEqual(['http://127.0.0.1:4010/__admin']);
    expect(doc.security).toEqual([{}, { adminToken: [] }]);
    expect(allRefs(doc).every((r) => r.startsWith('#/'))).toBe(true);
  });

  it('declares 401 on every operation', () => {
    for (const o of operations(doc)) expect(Object.keys(o.op.responses as Json), o.id).toContain('401');
  });

  it('lets is_bind be null in device state and devices', () => {
    for (const name of ['DeviceState', 'Device']) {
      const isBind = (schemas[name]!.properties as Json).is_bind as Json;
      expect(isBind.type, name).toEqual(expect.arrayContaining(['boolean', 'null']));
    }
    const state = compile({ $ref: '#/components/schemas/DeviceState' });
    expect(state({ is_bind: null })).toBe(true);
    expect(state({ bind_history: [] })).toBe(false);
  });

  it('accepts exactly one form of clock change', () => {
    const clock = compile({ $ref: '#/components/schemas/ClockChange' });
    expect(clock({ advance_ms: -5000 })).toBe(true);
    expect(clock({ now: '2030-01-01T00:00:00Z' })).toBe(true);
    expect(clock({})).toBe(false);
    expect(clock({ advance_ms: 1, now: '2030-01-01T00:00:00Z' })).toBe(false);
    expect(clock({ now: 'tomorrow' })).toBe(false);
    expect(clock({ freeze: true })).toBe(true);
    expect(clock({ advance_ms: 10, freeze: false })).toBe(true);
    expect(clock({ freeze: 'yes' })).toBe(false);
  });

  it('checks fault rules', () => {
    const rule = compile({ $ref: '#/components/schemas/FaultRule' });
    expect(rule({ operation: 'uploadPart', action: 'wrong_etag', match: { part_number: 2 } })).toBe(true);
    expect(rule({ status: 500 })).toBe(false);
    expect(rule({ operation: 'x', probability: 1.5 })).toBe(false);
    expect(rule({ operation: 'x', match: { nope: 1 } })).toBe(false);
    expect(rule({ operation: 'createTranscription', transcription_outcome: 'SUCCESS' })).toBe(false);
    const fault = compile({ $ref: '#/components/schemas/Fault' });
    expect(fault({ id: 'f1', operation: 'x', hits: 0, remaining: null })).toBe(true);
    expect(fault({ operation: 'x', hits: 0 })).toBe(false);
  });
});
