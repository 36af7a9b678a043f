import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ValidateFunction } from 'ajv/dist/2020.js';
import { expect } from 'vitest';
import { parse } from 'yaml';
import { createAjv } from '../spec/ajv.js';

// Helpers of the document tests (openapi.test.ts, openapi.specifics.test.ts): they read the
// YAML directly rather than through SpecIndex, so the documents are checked independently
// of the loader the server uses.

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

export type Json = Record<string, unknown>;
export interface Op {
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

export function operations(doc: Json): Op[] {
  const out: Op[] = [];
  for (const [path, item] of Object.entries((doc.paths ?? {}) as Record<string, Json>)) {
    for (const method of METHODS) {
      const op = item[method] as Json | undefined;
      if (op) out.push({ id: String(op.operationId), method, path, op, pathItem: item });
    }
  }
  return out;
}

export function deref(doc: Json, node: unknown): Json {
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

export function allRefs(node: unknown, out: string[] = []): string[] {
  if (Array.isArray(node)) for (const n of node) allRefs(n, out);
  else if (node && typeof node === 'object') {
    for (const [k, v] of Object.entries(node)) {
      if (k === '$ref' && typeof v === 'string') out.push(v);
      else allRefs(v, out);
    }
  }
  return out;
}

/** Compiles schemas of a document, resolving `#/components/schemas/X` refs. */
export function schemaCompiler(name: string, doc: Json): (schema: unknown) => ValidateFunction {
  const ajv = createAjv(false);
  const id = `urn:openapi-test:${name}`;
  const rewrite = (s: unknown) =>
    JSON.parse(JSON.stringify(s).replaceAll('"#/components/schemas/', `"${id}#/$defs/`)) as Json;
  const components = (doc.components ?? {}) as Json;
  ajv.addSchema(rewrite({ $id: id, $defs: components.schemas ?? {} }));
  return (schema) => ajv.compile(rewrite(schema));
}

/** Every JSON/form example of request bodies and responses, with the schema it illustrates. */
export function mediaExamples(doc: Json): { where: string; schema: unknown; value: unknown }[] {
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
export function schemaExamples(node: unknown, where: string, out: { where: string; schema: Json }[] = []) {
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
  'verifyDeviceSignature',
  'generateSdkKeys',
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
export const API_EXTENSIONS = [
  'refreshPartnerToken',
  'signDeviceSerial',
  'verifyDeviceSignature',
  'generateSdkKeys',
  'bindDevice',
  'unbindDevice',
  'uploadPartPreflight',
  'downloadFile',
  'headFile',
];
export const STORAGE_OPS = ['uploadPart', 'uploadPartPreflight', 'downloadFile', 'headFile'];
const ADMIN_OPS = [
  'resetState',
  'listApps',
  'createPartnerApp',
  'deletePartnerApp',
  'getClock',
  'setClock',
  'listDevices',
  'putDevice',
  'getDevice',
  'getDeviceRecovery',
  'listUploads',
  'deleteDevice',
  'listTranscriptions',
  'forceTranscription',
  'listTranscripts',
  'putTranscript',
  'deleteTranscript',
  'createFault',
  'listFaults',
  'clearFaults',
  'deleteFault',
  'listRequests',
  'countRequests',
  'clearRequests',
  'getHealth',
  'getProxy',
  'getAdminSpec',
  'listRecorders',
  'listPhones',
  'arrangePhone',
  'getRecorder',
  'putRecorder',
  'deleteRecorder',
  'arrangeRecorder',
  'addRecording',
  'pressRecord',
  'deleteRecorderRecording',
  'listWebhookEndpoints',
  'createWebhookEndpoint',
  'updateWebhookEndpoint',
  'deleteWebhookEndpoint',
  'sendTestWebhook',
  'listWebhookDeliveries',
  'redeliverWebhook',
];
const DEVICE_OPS = [
  'createPhone',
  'getPhone',
  'deletePhone',
  'startScan',
  'stopScan',
  'connectDevice',
  'disconnectDevice',
  'depairDevice',
  'listRecordings',
  'deleteRecording',
  'exportRecording',
  'pollEvents',
  'getDeviceSpec',
];

export const docs = [
  { name: 'openapi.yaml', doc: load('openapi.yaml'), required: API_OPS },
  { name: 'server/admin.openapi.yaml', doc: load('server/admin.openapi.yaml'), required: ADMIN_OPS },
  { name: 'server/device.openapi.yaml', doc: load('server/device.openapi.yaml'), required: DEVICE_OPS },
];
