import { createRequire } from 'node:module';
import type { Ajv2020 } from 'ajv/dist/2020.js';
import { createAjv } from './ajv.js';
import { type SchemaObject, sha256 } from './openapi.js';
import type { PrebuiltPart, SpecValidators } from './validators.js';

// ajv's standalone writer is CommonJS, and build-time only.
const require = createRequire(import.meta.url);

/**
 * Source of a CommonJS module holding every validator of one part of a document, compiled now
 * (the build writes it next to the spec cache; SpecValidators loads it when the document's
 * hash matches). Requests are checked at the simulator's start, with their parameters coerced;
 * responses (the contract suite's checks, and the tests' servers') as sent, and only loaded
 * when the first response is checked, so a simulator's start-up does not read them.
 */
export function standaloneModule(v: SpecValidators, part: PrebuiltPart): string {
  const { default: standaloneCode } = require('ajv/dist/standalone') as {
    default: (ajv: Ajv2020, refs: Record<string, string>) => string;
  };
  const ops = [...v.spec.operations.values()];
  const schemas =
    part === 'requests'
      ? ops.flatMap((op) => v.requestSchemas(op))
      : ops.flatMap((op) => v.responseSchemas(op).map((s) => ({ ...s, kind: 'body' as const })));
  const parts: string[] = [];
  for (const kind of ['param', 'body'] as const) {
    const mine = schemas.filter((s) => s.kind === kind);
    if (mine.length === 0) continue;
    const ajv = createAjv(kind === 'param', part === 'requests' ? true : 'shared-refs');
    const defs = (v.spec.doc.components?.schemas ?? {}) as Record<string, SchemaObject>;
    ajv.addSchema(v.rewrite({ $id: v.defsId, $defs: defs }));
    const refs: Record<string, string> = {};
    // Many keys share one schema (every operation's error answers): each is compiled once.
    const ids = new Map<string, string>();
    for (const s of mine) {
      const text = JSON.stringify(s.schema);
      let id = ids.get(text);
      if (!id) {
        id = `urn:partner-sim:${part}:${encodeURIComponent(s.key)}`;
        ids.set(text, id);
        ajv.addSchema({ ...v.rewrite(s.schema), $id: id });
      }
      refs[s.key] = id;
    }
    // Each kind's code in its own function scope: the two modules' names would collide.
    parts.push(`(function(exports){${standaloneCode(ajv, refs)}})(validators);`);
  }
  return `"use strict";\nconst validators = {};\n${parts.join('\n')}\nmodule.exports = { sha256: ${JSON.stringify(sha256(v.spec.source))}, validators };\n`;
}
