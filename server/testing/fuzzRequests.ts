import fc from 'fast-check';
import type { OperationInfo, Parameter, SchemaObject, SpecIndex } from '../spec/openapi.js';
import type { FuzzContext, FuzzRequest } from './fuzzTypes.js';
import { bytesOf, hugeJsonBodies } from './hostileBodies.js';

// Request generators for the property-based fuzz test (server/spec/fuzz.test.ts), derived from
// an operation of either document: its parameters, request body and security decide what is
// generated, so a new operation or field is fuzzed without touching the test.

// Values JSON text can carry but a JS number cannot: written into the body text verbatim.
const RAW = (text: string) => `@@${text}@@`;
const unraw = (json: string) => json.replace(/"@@([^@"]*)@@"/g, '$1');

const weird = fc.constantFrom<unknown>(
  '',
  ' ',
  '\u0000',
  'ü',
  '😀',
  '%zz',
  '<b>x</b>',
  '../../etc/passwd',
  'a'.repeat(10_000),
  -1,
  0,
  1.5,
  2 ** 53,
  1e20,
  -1e20,
  RAW('1e400'),
  RAW('-1e400'),
  RAW('123456789012345678901234567890'),
  RAW(`${'['.repeat(5000)}${']'.repeat(5000)}`),
  true,
  null,
  [],
  {},
);
const junk: fc.Arbitrary<unknown> = fc.oneof(weird, fc.jsonValue({ maxDepth: 2 }), fc.string(), fc.double());

function fromSchema(spec: SpecIndex, raw: unknown, depth = 0): fc.Arbitrary<unknown> {
  const s = spec.deref<SchemaObject & Record<string, unknown>>(raw);
  if (!s || typeof s !== 'object' || depth > 4) return junk;
  if (Array.isArray(s.enum) && s.enum.length > 0) return fc.constantFrom(...(s.enum as unknown[]));
  if ('const' in s) return fc.constant(s.const);
  const alts = (s.oneOf ?? s.anyOf ?? s.allOf) as unknown[] | undefined;
  if (alts?.length) return fc.oneof(...alts.map((a) => fromSchema(spec, a, depth + 1)));
  const type = Array.isArray(s.type) ? s.type.find((t) => t !== 'null') : s.type;
  const field = (sub: unknown) =>
    fc.oneof({ weight: 4, arbitrary: fromSchema(spec, sub, depth + 1) }, { weight: 1, arbitrary: junk });
  switch (type) {
    case 'object': {
      const props = Object.entries((s.properties ?? {}) as Record<string, unknown>);
      return fc.record(Object.fromEntries(props.map(([k, v]) => [k, field(v)])), { requiredKeys: [] });
    }
    case 'array':
      return fc.array(field(s.items), { maxLength: 4 });
    case 'string':
      if (s.format === 'date-time') return fc.date({ noInvalidDate: true }).map((d) => d.toISOString());
      return fc.oneof(
        ...(Array.isArray(s.examples) && s.examples.length
          ? [fc.constantFrom(...(s.examples as unknown[]))]
          : []),
        fc.string({ maxLength: 40 }),
      );
    case 'integer':
      return fc.integer({
        min: typeof s.minimum === 'number' ? s.minimum : -1e6,
        max: typeof s.maximum === 'number' ? Math.min(s.maximum, 2 ** 31) : 1e9,
      });
    case 'number':
      return fc.double({ noNaN: true, noDefaultInfinity: true });
    case 'boolean':
      return fc.boolean();
    default:
      return junk;
  }
}

/** Header values Node's client accepts: printable ASCII (anything else is refused before sending). */
const headerSafe = (s: string) => s.replace(/[^\x20-\x7e]/g, '?').trim();
const asText = (v: unknown) => (typeof v === 'string' ? v : unraw(JSON.stringify(v) ?? ''));

// Malformed or hostile path segments, sent without further encoding.
const rawSegments = fc.constantFrom(
  '%zz',
  '%',
  '%E0%A4%A',
  '%C0%AF',
  '%00',
  '%2F',
  '%2e%2e',
  'x'.repeat(5000),
  '%F0%9F%98%80',
);

function paramValue(spec: SpecIndex, p: Parameter): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 3, arbitrary: fromSchema(spec, p.schema).map(asText) },
    { weight: 1, arbitrary: junk.map(asText) },
    { weight: 1, arbitrary: fc.constantFrom('1e400', '-1', 'NaN', 'Infinity', '9'.repeat(40), '%zz') },
  );
}

function pathOf(ctx: FuzzContext, op: OperationInfo): fc.Arbitrary<string> {
  const names = op.parameters.filter((p) => p.in === 'path');
  const segment = (p: Parameter) =>
    fc.oneof(
      { weight: 3, arbitrary: paramValue(ctx.spec, p).map((v) => encodeURIComponent(v || 'x')) },
      { weight: 1, arbitrary: rawSegments },
    );
  const values = fc.tuple(...names.map(segment));
  const query = fc.tuple(
    ...op.parameters
      .filter((p) => p.in === 'query')
      .map((p) =>
        fc.option(
          fc.oneof(
            {
              weight: 4,
              arbitrary: paramValue(ctx.spec, p).map((v) => `${p.name}=${encodeURIComponent(v)}`),
            },
            { weight: 1, arbitrary: rawSegments.map((v) => `${p.name}=${v}`) },
            { weight: 1, arbitrary: fc.constant(`${p.name}=1&${p.name}=2`) },
          ),
        ),
      ),
    fc.option(fc.constantFrom('zz=1', '%zz=%zz', 'a[b]=1', '__proto__=x')),
  );
  const generated = fc.tuple(values, query).map(([vals, qs]) => {
    let i = 0;
    const path = op.path.replace(/\{[^}]+\}/g, () => vals[i++] ?? 'x');
    const q = qs.filter((x): x is string => typeof x === 'string' && x !== '').join('&');
    return `${ctx.prefix}${path}${q ? `?${q}` : ''}`;
  });
  const known = ctx.known?.[op.id] ?? [];
  return known.length ? fc.oneof(generated, fc.constantFrom(...known)) : generated;
}

function bodyOf(
  ctx: FuzzContext,
  op: OperationInfo,
): fc.Arbitrary<{ type?: string; body?: string | Uint8Array }> {
  const rb = op.operation.requestBody
    ? ctx.spec.deref<{ content?: Record<string, { schema?: unknown }> }>(op.operation.requestBody)
    : undefined;
  const medias = Object.keys(rb?.content ?? {});
  const type = fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom(...(medias.length ? medias : ['application/json'])) },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        'application/json; charset=utf-16',
        'text/plain',
        'application/xml',
        'a/b/c',
      ),
    },
  );
  const none = fc.constant({});
  if (medias.includes('application/octet-stream'))
    return fc.oneof(none, fc.record({ type, body: fc.uint8Array({ maxLength: 2048 }) }));
  const schema = rb?.content?.[medias[0] ?? '']?.schema;
  const value = schema ? fromSchema(ctx.spec, schema) : junk;
  const encoded = fc.tuple(type, value).map(([t, v]) => {
    if (!t.includes('urlencoded')) return { type: t, body: unraw(JSON.stringify(v) ?? 'null') };
    const entries: [string, unknown][] = v && typeof v === 'object' ? Object.entries(v) : [['value', v]];
    return {
      type: t,
      body: new URLSearchParams(entries.map(([k, x]): [string, string] => [k, asText(x)])).toString(),
    };
  });
  return fc.oneof(
    { weight: medias.length ? 6 : 1, arbitrary: encoded },
    { weight: 2, arbitrary: none },
    { weight: 1, arbitrary: fc.record({ type, body: fc.constantFrom(...hugeJsonBodies().map(bytesOf)) }) },
    {
      weight: 1,
      arbitrary: fc.record({ type, body: fc.constantFrom('{', '{"a":', 'null', '"s"', '[]', '\u0000') }),
    },
  );
}

function headersOf(ctx: FuzzContext, op: OperationInfo): fc.Arbitrary<Record<string, string>> {
  const bad = fc.oneof(
    fc.string({ maxLength: 60 }).map((s) => `Bearer ${s}`),
    fc.string({ maxLength: 60 }).map((s) => `Basic ${Buffer.from(s).toString('base64')}`),
    fc.constantFrom('Bearer', 'Basic !!!', 'Digest x', 'Bearer a.b.c', 'Bearer *=='),
    ...(ctx.authorizations.length ? [fc.constantFrom(...ctx.authorizations).map((a) => `${a}x`)] : []),
  );
  const authorization = fc.option(
    fc.oneof(
      { weight: ctx.authorizations.length ? 4 : 0, arbitrary: fc.constantFrom('', ...ctx.authorizations) },
      { weight: 1, arbitrary: bad },
    ),
  );
  const apiKey = fc.option(
    fc.oneof(
      { weight: ctx.apiKeys.length ? 3 : 0, arbitrary: fc.constantFrom({ id: '', key: '' }, ...ctx.apiKeys) },
      { weight: 1, arbitrary: fc.record({ id: fc.string(), key: fc.string() }) },
    ),
  );
  const declared = op.parameters.filter((p) => p.in === 'header');
  const own = fc.tuple(
    ...declared.map((p) => fc.option(paramValue(ctx.spec, p).map((v) => [p.name, v] as const))),
  );
  const range = fc.option(
    fc.constantFrom('bytes=0-', 'bytes=-0', 'bytes=99999999999999999999-', 'bytes=a-b', 'bytes=0-1,2-3'),
  );
  return fc.record({ authorization, apiKey, own, range }).map(({ authorization, apiKey, own, range }) => {
    const h: Record<string, string> = {};
    if (authorization != null) h.authorization = headerSafe(authorization);
    if (apiKey) {
      h['x-client-id'] = headerSafe(apiKey.id);
      h['x-client-api-key'] = headerSafe(apiKey.key);
    }
    for (const pair of own) if (pair) h[pair[0].toLowerCase()] = headerSafe(pair[1]);
    if (range != null) h.range = range;
    return h;
  });
}

const short = (s: string) => (s.length > 300 ? `${s.slice(0, 300)}… (${s.length} chars)` : s);

/** Arbitrary requests aimed at one operation: valid, half-valid and hostile parts mixed. */
export function requestsFor(ctx: FuzzContext, op: OperationInfo): fc.Arbitrary<FuzzRequest> {
  return fc.record({ path: pathOf(ctx, op), headers: headersOf(ctx, op), body: bodyOf(ctx, op) }).map((r) => {
    const headers = { ...r.headers };
    if (r.body.type !== undefined && r.body.body !== undefined) headers['content-type'] = r.body.type;
    const req: FuzzRequest = {
      method: op.method.toUpperCase(),
      path: r.path,
      headers,
      ...(r.body.body === undefined ? {} : { body: r.body.body }),
    };
    // Counterexamples print short: a 1 MB body would drown the report.
    const shown = {
      ...req,
      path: short(req.path),
      body: typeof req.body === 'string' ? short(req.body) : req.body,
    };
    return Object.assign(req, { [fc.toStringMethod]: () => JSON.stringify(shown) });
  });
}
