import { SimError, type ValidationIssue } from '../core/errors.js';
import { apiSpec } from '../spec/openapi.js';
import { undeclaredFields } from '../spec/undeclaredFields.js';

const PARAMS_SCHEMA = { $ref: '#/components/schemas/TranscriptionParams' };
/** Names listed in a warning: a header must stay small enough for any client to read. */
const MAX_NAMED = 20;
const MAX_NAME = 64;

/** A field name kept short enough to read in a warning (the HTTP layer makes it header-safe). */
const shortName = (name: string): string => (name.length > MAX_NAME ? `${name.slice(0, MAX_NAME)}...` : name);

/**
 * The one decision about unknown fields in transcription `params` (openapi.yaml declares the
 * known ones). Lenient, like the live service is taken to be: they are ignored and the answer
 * is the warning to show (`unknown params ignored: params.foo, params.transcribe.bar`), or
 * none. Strict (`--strict-params` or the app's `strict_params`): 422 naming each one.
 */
export function checkParams(params: unknown, strict: boolean): string[] {
  const unknown = undeclaredFields(apiSpec(), PARAMS_SCHEMA, params, ['params']);
  if (unknown.length === 0) return [];
  if (strict) {
    throw SimError.validation(
      unknown.map((path): ValidationIssue => {
        const input = path.slice(1).reduce<unknown>((v, k) => (v as Record<string, unknown>)[k], params);
        return {
          loc: ['body', ...path],
          msg: 'Extra inputs are not permitted',
          type: 'extra_forbidden',
          input,
        };
      }),
    );
  }
  const names = unknown.slice(0, MAX_NAMED).map((p) => p.map(shortName).join('.'));
  const more = unknown.length > MAX_NAMED ? ` and ${unknown.length - MAX_NAMED} more` : '';
  return [`unknown params ignored: ${names.join(', ')}${more}`];
}
