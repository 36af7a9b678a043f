import { createRequire } from 'node:module';
import type { Ajv2020 } from 'ajv/dist/2020.js';

// ajv and ajv-formats are CommonJS, loaded when something must be compiled: a simulator
// started from a build validates requests with the validators the build compiled, so loading
// ajv (tens of ms) is off its start-up path.
const require = createRequire(import.meta.url);

const OAS_FORMATS = ['int32', 'int64', 'float', 'double', 'byte', 'binary', 'password'];

/** How standalone code reaches ajv-formats' checks (the OAS formats above are no-ops). */
function codeOfFormats() {
  const { _ } = require('ajv') as typeof import('ajv');
  return _`require("ajv-formats/dist/formats").fullFormats`;
}

/**
 * An ajv for OpenAPI 3.1 schemas: 2020-12, OAS formats known, unknown keywords ignored.
 * `standalone`: keep each function's source, for the build to write them out; 'shared-refs'
 * also compiles each referenced component once instead of inlining it at every use (the
 * build's response validators: 2.4 MB of code inlined, 0.8 MB shared; same answers).
 */
export function createAjv(coerce: boolean, standalone: boolean | 'shared-refs' = false): Ajv2020 {
  const { Ajv2020: Ajv } = require('ajv/dist/2020.js') as typeof import('ajv/dist/2020.js');
  const formats = require('ajv-formats') as { default: (ajv: Ajv2020) => void };
  const ajv = new Ajv({
    strict: false,
    allErrors: true,
    coerceTypes: coerce,
    // Parameters (the coercing instance) get their documented defaults filled in; bodies
    // are left as sent, since some body defaults are configurable (e.g. --user-token-ttl).
    useDefaults: coerce,
    logger: false,
    // Checking each schema against the 2020-12 meta-schema cost ~70 ms of start-up (and
    // blocked the first request). The schemas are the project's own documents, which
    // openapi.test.ts validates as OpenAPI 3.1, so the check would only ever repeat it.
    validateSchema: false,
    ...(standalone ? { code: { source: true, formats: codeOfFormats() } } : {}),
    ...(standalone === 'shared-refs' ? { inlineRefs: false } : {}),
  });
  formats.default(ajv);
  for (const f of OAS_FORMATS) ajv.addFormat(f, true);
  return ajv;
}

// Two ajv instances per process (each costs tens of ms to set up), shared by both documents:
// bodies are checked as sent; query, path and header values arrive as strings and are coerced
// (in place, so the handler sees numbers and defaults).
let shared: { body: Ajv2020; param: Ajv2020 } | undefined;
export const sharedAjv = (): { body: Ajv2020; param: Ajv2020 } => {
  shared ??= { body: createAjv(false), param: createAjv(true) };
  return shared;
};
