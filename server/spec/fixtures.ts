import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { SimError, type ValidationIssue } from '../core/errors.js';
import { adminSpec, sha256, specCachePath } from './openapi.js';
import { validatorsFor } from './validators.js';

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const note = { type: 'string', description: 'What the entry reproduces; ignored.' };

/**
 * Each fixture file is a list of what the control API takes to create one record (its
 * schemas in server/admin.openapi.yaml, checked by the same ajv), plus a `note`. Keys
 * outside those are errors, so a misspelt key is reported instead of silently ignored.
 */
const SCHEMAS: Record<FixtureFile, object> = {
  'apps.json': {
    type: 'array',
    items: {
      allOf: [ref('NewPartnerApp')],
      // Fixture apps exist to give known credentials: a generated id would change each reset.
      required: ['client_id'],
      properties: { note },
      unevaluatedProperties: false,
    },
  },
  'devices.json': {
    type: 'array',
    items: {
      allOf: [ref('DeviceState')],
      required: ['sn'],
      properties: { sn: ref('SerialNumber'), note },
      unevaluatedProperties: false,
    },
  },
};

export type FixtureFile = 'apps.json' | 'devices.json';

/** `[3].is_bind` for loc `[3, 'is_bind']`. */
const fieldOf = (path: (string | number)[]): string =>
  path
    .map((k) => (typeof k === 'number' ? `[${k}]` : `.${k}`))
    .join('')
    .replace(/^\./, '') || '(whole file)';

const shown = (v: unknown): string => {
  const s = JSON.stringify(v) ?? String(v);
  return s.length > 60 ? `${s.slice(0, 60)}…` : s;
};

/**
 * A broken fixture: 422 whose issues are located `['fixtures', file, index, field...]`, and
 * whose message is one line naming file and field (what start-up prints before exiting).
 */
export function fixtureError(file: string, issues: ValidationIssue[]): SimError {
  const parts = issues
    .slice(0, 3)
    .map(
      (i) => `${fieldOf(i.loc.slice(2))}: ${i.msg}${i.input === undefined ? '' : ` (got ${shown(i.input)})`}`,
    );
  const more = issues.length > 3 ? ` (and ${issues.length - 3} more)` : '';
  return new SimError(422, 'FIXTURE_INVALID', `fixtures/${file}: ${parts.join('; ')}${more}`, { issues });
}

/**
 * A fixture file of `dir`, parsed and validated; undefined when the file does not exist.
 * Anything else wrong with it is a `fixtureError` (never a server path in the message).
 */
export async function readFixture<T>(dir: string, file: FixtureFile): Promise<T | undefined> {
  const whole = (msg: string, type: string) => fixtureError(file, [{ loc: ['fixtures', file], msg, type }]);
  let text: string;
  try {
    text = await readFile(join(dir, file), 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return undefined;
    throw whole(`cannot be read (${code ?? 'error'})`, 'file_unreadable');
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (e) {
    throw whole(`is not valid JSON: ${(e as Error).message}`, 'json_invalid');
  }
  const issues = fixtureIssues(file, text, SCHEMAS[file], data, ['fixtures', file]);
  if (issues.length > 0) throw fixtureError(file, issues);
  return data as T;
}

/** Where `npm run build` lists the fixture texts it found valid (see buildSpecCache.ts). */
export const VOUCHED_PATH = specCachePath('fixtures-valid');
export const vouchKey = (kind: string, text: string): string => sha256(`${kind}\0${text}`);

let vouched: Set<string> | undefined;
function vouchedTexts(): Set<string> {
  if (vouched) return vouched;
  try {
    const cache = JSON.parse(readFileSync(VOUCHED_PATH, 'utf8')) as { admin: string; valid: string[] };
    vouched = new Set(cache.admin === sha256(adminSpec().source) ? cache.valid : []);
  } catch {
    vouched = new Set();
  }
  return vouched;
}

/**
 * Issues of a fixture's parsed `data` against `schema`. The packaged fixtures were checked
 * at build time against this very admin document: a text the build vouched for is not
 * checked again, which spares start-up compiling the fixture schemas (~20 ms). An edited
 * fixture, or another folder's, is checked as always.
 */
export function fixtureIssues(
  kind: string,
  text: string,
  schema: object,
  data: unknown,
  at: (string | number)[],
): ValidationIssue[] {
  if (vouchedTexts().has(vouchKey(kind, text))) return [];
  return validatorsFor(adminSpec()).validateValue(schema, data, at);
}

/** The schema each fixture file is checked against (the build's vouching uses them too). */
export const fixtureSchema = (file: FixtureFile): object => SCHEMAS[file];
