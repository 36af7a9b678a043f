import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { adminSpec, apiSpec } from './openapi.js';
import { prebuiltPath, SpecValidators, validatorsFor } from './validators.js';

/** Requests each operation gets in both checks: nothing at all, and wrong types everywhere. */
const samples = [
  { query: {}, headers: {}, params: {}, body: undefined, contentType: undefined, hasBody: false },
  {
    query: { type: 'x', sn: '1', limit: 'many', page: '-1' },
    headers: { 'x-client-id': '' },
    params: { file_id: '', transcription_id: 'x' },
    body: { user_id: 5, filesize: 'big', file_url: 'nope', part_list: [{ PartNumber: 'a' }] },
    contentType: 'application/json',
    hasBody: true,
  },
];

describe('request validators compiled by the build', () => {
  for (const spec of [apiSpec(), adminSpec()]) {
    it.skipIf(!existsSync(prebuiltPath(spec)))(
      `answer as compiled ones for every ${spec.name} operation`,
      () => {
        const fresh = new SpecValidators(spec, false);
        for (const op of spec.operations.values()) {
          for (const sample of samples) {
            // Each side gets its own copy: coercion and defaults change the values in place.
            const built = validatorsFor(spec).validateRequest(op, structuredClone(sample));
            expect(built, op.id).toEqual(fresh.validateRequest(op, structuredClone(sample)));
          }
        }
      },
    );
  }
});

/** Bodies each declared JSON response gets in both checks: wrong shapes and wrong types. */
const bodies = [{}, [], null, 'x', { code: 'x', message: 5, data: { file_id: 1 }, items: [{ sn: 3 }] }];

describe('response validators compiled by the build', () => {
  for (const spec of [apiSpec(), adminSpec()]) {
    // A build wrote the request validators: it must have written these too.
    it.skipIf(!existsSync(prebuiltPath(spec)))(
      `hold every JSON response of ${spec.name} and answer as compiled ones`,
      () => {
        const built = createRequire(import.meta.url)(prebuiltPath(spec, 'responses')) as {
          validators: Record<string, unknown>;
        };
        const fresh = new SpecValidators(spec, false);
        let checked = 0;
        let refused = 0;
        // Keys of one schema share its function; each schema is compared once (compiling all
        // 490 keys afresh took seconds).
        const shared = new Map<string, unknown>();
        for (const op of spec.operations.values()) {
          for (const { key, schema } of fresh.responseSchemas(op)) {
            expect(typeof built.validators[key], key).toBe('function');
            const text = JSON.stringify(schema);
            if (shared.has(text)) {
              expect(built.validators[key], key).toBe(shared.get(text));
              continue;
            }
            shared.set(text, built.validators[key]);
            const [, declared, media] = key.split(' ') as [string, string, string];
            const status = Number(declared.replace('XX', '00').replace('default', '599'));
            for (const body of bodies) {
              const answer = validatorsFor(spec).validateResponse(op, status, media, body);
              expect(answer, key).toEqual(fresh.validateResponse(op, status, media, body));
              if (answer.length > 0) refused++;
              checked++;
            }
          }
        }
        expect(checked).toBeGreaterThan(40);
        expect(refused).toBeGreaterThan(checked / 2);
      },
    );
  }
});
