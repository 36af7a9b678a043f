import { Validator } from '@seriousme/openapi-schema-validator';
import { describe, expect, it } from 'vitest';
import {
  allRefs,
  deref,
  docs,
  type Json,
  mediaExamples,
  operations,
  schemaCompiler,
  schemaExamples,
} from './specTestKit.js';

// Structural checks of the two OpenAPI documents every other layer is derived from.

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
      const content = deref(doc, r).content as Record<string, Json>;
      // The storage host answers S3 XML, its 422 (a malformed X-Sim-Fault) included.
      const xml = content['application/xml']?.schema as Json | undefined;
      if (o.pathItem.servers && xml) {
        expect(xml.$ref, `${o.id} 422`).toBe('#/components/schemas/S3Error');
        continue;
      }
      const schema = content['application/json']?.schema as Json;
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
