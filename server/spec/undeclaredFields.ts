import type { SchemaObject, SpecIndex } from './openapi.js';

type Node = SchemaObject & { $ref?: string };

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The members of `value` that `schema` does not declare, as paths from `at`, at every level
 * the schema describes. A schema that says nothing about extra members (no
 * `additionalProperties`) lets them through validation; this names them, so a caller can
 * ignore them with a warning or refuse them — the spec stays the one list of known fields.
 * Members the schema does declare are followed into their own schema; undeclared ones are not
 * entered, so the walk costs at most the size of the declared part of the value.
 */
export function undeclaredFields(
  spec: SpecIndex,
  schema: unknown,
  value: unknown,
  at: string[] = [],
): string[][] {
  const out: string[][] = [];
  const walk = (raw: unknown, v: unknown, path: string[]): void => {
    const s = spec.deref<Node>(raw);
    if (!s || !isPlainObject(v) || !s.properties) return;
    // A map (`additionalProperties: {…}` or `true`) declares every key; `false` is ajv's to refuse.
    const open = s.additionalProperties !== undefined && s.additionalProperties !== false;
    for (const [key, member] of Object.entries(v)) {
      const declared = Object.hasOwn(s.properties, key) ? s.properties[key] : undefined;
      if (declared) walk(declared, member, [...path, key]);
      else if (!open) out.push([...path, key]);
    }
  };
  walk(schema, value, at);
  return out;
}
