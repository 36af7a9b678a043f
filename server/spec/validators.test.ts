import { existsSync } from 'node:fs';
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
