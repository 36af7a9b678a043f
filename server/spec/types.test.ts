import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import openapiTS, { astToString, COMMENT_HEADER } from 'openapi-typescript';
import { describe, expect, it } from 'vitest';
import { fromRoot } from '../core/root.js';

// The handler types derive from generated files; this keeps them in step with the YAML, so a
// spec edit without `npm run gen:types` fails here instead of silently typing stale fields.
describe('generated types are up to date with the specs', () => {
  // The same options as `npm run gen:types`: control API request fields with a default stay
  // optional, so a typed control client may leave them out as the document allows.
  it.each([
    ['openapi.yaml', 'server/spec/api-types.ts', {}],
    ['server/admin.openapi.yaml', 'server/spec/admin-types.ts', { defaultNonNullable: false }],
    ['server/device.openapi.yaml', 'server/spec/device-types.ts', { defaultNonNullable: false }],
  ])('%s -> %s', async (spec, out, options) => {
    const ast = await openapiTS(pathToFileURL(fromRoot(spec)), options);
    const fresh = COMMENT_HEADER + astToString(ast);
    expect(fresh === readFileSync(fromRoot(out), 'utf8'), 'run: npm run gen:types').toBe(true);
  });
});
