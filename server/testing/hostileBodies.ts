import type { OperationInfo, SchemaObject } from '../spec/openapi.js';
import type { FuzzContext, FuzzRequest } from './fuzzTypes.js';

let hugeBodies: string[] | undefined;
let manyKeys: string | undefined;
/** The largest bodies as the bytes sent: encoded once, not at each of their ~150 sends a run. */
const encoded = new Map<string, Buffer>();
export const bytesOf = (body: string): Buffer => {
  const b = encoded.get(body) ?? Buffer.from(body);
  encoded.set(body, b);
  return b;
};

/** Just under the partner API's 1 MB JSON limit, all keys: 85,000 of them (issue 20, item 1). */
export function manyKeyBody(): string {
  manyKeys ??= JSON.stringify(
    Object.fromEntries(Array.from({ length: 85_000 }, (_, i) => [`k${String(i).padStart(6, '0')}`, 0])),
  );
  return manyKeys;
}

/** Bodies built to exhaust recursion or memory: nested 5,000 and 100,000 deep, 20,000 keys, 1 MB key. */
/** Over the partner API's 1 MB JSON limit: one field of 1.1 MB (the last of hugeJsonBodies). */
export const overLimitBody = (): string => hugeJsonBodies().at(-1)!;

export function hugeJsonBodies(): string[] {
  hugeBodies ??= [
    `${'['.repeat(5000)}${']'.repeat(5000)}`,
    `${'{"a":'.repeat(100_000)}1${'}'.repeat(100_000)}`,
    JSON.stringify(Object.fromEntries(Array.from({ length: 20_000 }, (_, i) => [`k${i}`, i]))),
    JSON.stringify({ ['k'.repeat(1_000_000)]: 1 }),
    JSON.stringify({ pad: 'x'.repeat(1_100_000) }),
  ];
  return hugeBodies;
}

/**
 * Requests every run sends first, whatever the seed: each known hostile body class (a field
 * holding 1e400, a field nested 5,000 deep, a body nested 100,000 deep) with each valid
 * credential, and a 1 MB body of many keys without any, so a few random runs cannot miss them.
 */
export function hostileExamples(ctx: FuzzContext, op: OperationInfo): FuzzRequest[] {
  const rb = op.operation.requestBody
    ? ctx.spec.deref<{ content?: Record<string, { schema?: unknown }> }>(op.operation.requestBody)
    : undefined;
  const media = Object.keys(rb?.content ?? {}).find((m) => m.includes('json'));
  if (!media) return [];
  const schema = ctx.spec.deref<SchemaObject>(rb?.content?.[media]?.schema);
  const field = Object.keys(schema?.properties ?? {})[0] ?? 'x';
  const bodies = [`{"${field}":1e400}`, `{"${field}":${hugeJsonBodies()[0]}}`, bytesOf(hugeJsonBodies()[1]!)];
  const path = `${ctx.prefix}${op.path.replace(/\{[^}]+\}/g, 'x')}`;
  const key = ctx.apiKeys[0];
  const keyHeaders: Record<string, string> = key
    ? { 'x-client-id': key.id, 'x-client-api-key': key.key }
    : {};
  const method = op.method.toUpperCase();
  return [
    ...ctx.authorizations.flatMap((authorization) =>
      bodies.map((body) => ({
        method,
        path,
        headers: { ...keyHeaders, authorization, 'content-type': media },
        body,
      })),
    ),
    // Without credentials: refused, and its journal entry must stay small all the same.
    { method, path, headers: { 'content-type': media }, body: bytesOf(manyKeyBody()) },
  ];
}
