import type { ErrorObject } from 'ajv/dist/2020.js';

/** ajv's errors of a response body as human-readable violations naming the field. */
export function formatErrors(errors: ErrorObject[], prefix: string): string[] {
  return errors.map((e) => {
    const field =
      e.keyword === 'required'
        ? `${e.instancePath}/${(e.params as { missingProperty: string }).missingProperty}`
        : e.instancePath || '/';
    return `${prefix}: ${field} ${e.message ?? 'is invalid'}`;
  });
}
