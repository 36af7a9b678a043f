import { describe, expect, it } from 'vitest';
import {
  API_EXTENSIONS,
  allRefs,
  deref,
  docs,
  type Json,
  operations,
  STORAGE_OPS,
  schemaCompiler,
} from '../testing/specDocuments.js';

// What the documents must say about this service in particular (seed spec and live notes).

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

  it('speaks to partner developers: no citations of files they do not have (sources live in docs/fidelity.md)', () => {
    const text = JSON.stringify(doc);
    for (const cite of [/seed spec/i, /live notes/i, /§\s*\d/, /service-spec\.md/, /live-service-notes/]) {
      expect(text, String(cite)).not.toMatch(cite);
    }
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
      verifyDeviceSignature: [{ userBearer: [] }],
      generateSdkKeys: [{ userBearer: [] }],
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
    const ID = 'task_exec_0123456789abcdef0123456789abcdef';
    const result = {
      text: 'hi',
      language: 'en-US',
      duration: 1,
      segments: [{ start: 0, end: 1, text: 'hi', speaker: 'Speaker 1' }],
    };
    const live = {
      text: 'hi',
      language: 'en',
      duration: 1,
      results: [
        { start: 0, end: 1, text: 'hi', speaker_id: 'S0', language: 'en', language_probability: 0.9 },
      ],
    };
    expect(validate({ transcription_id: ID, status: 'PENDING', data: {} })).toBe(true);
    expect(validate({ transcription_id: ID, status: 'SUCCESS', data: result })).toBe(true);
    expect(validate({ transcription_id: ID, status: 'SUCCESS', data: live })).toBe(true);
    expect(validate({ transcription_id: ID, status: 'SUCCESS', data: {} })).toBe(false);
    expect(validate({ transcription_id: ID, status: 'PROGRESS', data: result })).toBe(false);
    expect(validate({ transcription_id: ID, status: 'FAILED', data: {} })).toBe(false);
    expect(validate({ transcription_id: ID, status: 'FAILURE', data: {}, message: 'boom' })).toBe(true);
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
    // Unknown params pass the schema (a lenient service); paramsPolicy names or refuses them.
    expect(
      tx({ file_url: 'https://example.com/a.mp3', params: { vad: { decode_silence: true, x: 1 } } }),
    ).toBe(true);
    expect(tx({ file_url: 'https://example.com/a.mp3', params: { vad: { decode_silence: 'yes' } } })).toBe(
      false,
    );
    expect(
      tx({ file_url: 'https://example.com/a.mp3', params: { transcribe: { detection_level: 'chapter' } } }),
    ).toBe(true);
    expect(
      tx({ file_url: 'https://example.com/a.mp3', params: { transcribe: { detection_level: 'word' } } }),
    ).toBe(false);
    expect(tx({ file_url: 'https://example.com/a.mp3', params: { hotwords: 'a,b' } })).toBe(true);
    expect(tx({ file_url: 'https://example.com/a.mp3', params: { hotwords: 7 } })).toBe(false);
    const presign = compile({ $ref: '#/components/schemas/PresignRequest' });
    expect(presign({ filesize: 5368709120, filetype: 'mp3' })).toBe(true);
    expect(presign({ filesize: 5368709121, filetype: 'mp3' })).toBe(false);
    // Any plausible extension passes the schema; which are accepted is the domain's 400.
    expect(presign({ filesize: 10, filetype: 'wav' })).toBe(true);
    expect(presign({ filesize: 10, filetype: '../x' })).toBe(false);
    expect(presign({ filesize: 10, filetype: 7 })).toBe(false);
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

  it('declares 401 and 403 on every operation but the open health check, 415 on mutating ones', () => {
    for (const o of operations(doc)) {
      const codes = Object.keys(o.op.responses as Json);
      if (o.id === 'getHealth') {
        expect(o.op.security, o.id).toEqual([]);
        // Open to container probes: no admin token, no host check, so no 401 or 403.
        expect(codes, o.id).not.toContain('401');
        expect(codes, o.id).not.toContain('403');
        continue;
      }
      expect(codes, o.id).toEqual(expect.arrayContaining(['401', '403']));
      if (o.method !== 'get') expect(codes, o.id).toContain('415');
      else expect(codes, o.id).not.toContain('415');
    }
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
