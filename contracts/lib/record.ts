import type { Observed } from './conform.js';

/**
 * What each scenario exercised, carried to the reporter on the test's own meta (vitest sends
 * it from the worker with the result): `op status` pairs whose responses were validated, for
 * the coverage index; with CONTRACT_RECORD_SHAPES=1 also each response's shape, for the drift
 * check between two targets. Scenarios of a file run one at a time, so one current record.
 */
export interface ResponseShape {
  op: string;
  status: number;
  /** The body's form: `{code,message}` (an object's top-level keys), `xml <Error>`, `empty`, a media type. */
  form: string;
  /** JSON body fields by path (`/data/results[]/text`) and their JSON type. */
  fields: Record<string, string>;
}

declare module '@vitest/runner' {
  interface TaskMeta {
    exercised?: string[];
    shapes?: ResponseShape[];
  }
}

interface Record_ {
  exercised: string[];
  shapes: ResponseShape[] | undefined;
}

let current: Record_ | undefined;

/** Start recording into a scenario's meta (called by `scenario` before its body runs). */
export function startRecording(meta: { exercised?: string[]; shapes?: ResponseShape[] }): void {
  meta.exercised = [];
  if (process.env.CONTRACT_RECORD_SHAPES === '1') meta.shapes = [];
  current = { exercised: meta.exercised, shapes: meta.shapes };
}

/** A response of `op` with `status` conformed to the spec. */
export function recordExercised(op: string, status: number): void {
  if (op.startsWith('admin:') || !current) return;
  const key = `${op} ${status}`;
  if (!current.exercised.includes(key)) current.exercised.push(key);
}

const MAX_FIELDS = 200;

function typeOf(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  return typeof v;
}

/** Paths and types of a JSON value; array elements merge under `[]` (values never kept). */
function flatten(v: unknown, path: string, out: Record<string, string>, depth: number): void {
  if (Object.keys(out).length >= MAX_FIELDS || depth > 8) return;
  const t = typeOf(v);
  if (path) out[path] = out[path] && out[path] !== t ? `${out[path]}|${t}` : t;
  if (t === 'array') for (const el of (v as unknown[]).slice(0, 20)) flatten(el, `${path}[]`, out, depth + 1);
  if (t === 'object')
    for (const [k, child] of Object.entries(v as Record<string, unknown>))
      flatten(child, `${path}/${k}`, out, depth + 1);
}

/** The shape of a response: form of the body and its fields' types, no values. */
export function shapeOf(op: string, res: Observed & { body?: unknown }): ResponseShape {
  const media = String(res.headers['content-type'] ?? '')
    .split(';')[0]!
    .trim()
    .toLowerCase();
  const fields: Record<string, string> = {};
  let form: string;
  if (res.text === '') form = 'empty';
  else if (media.includes('json') && res.body !== null && typeof res.body === 'object') {
    flatten(res.body, '', fields, 0);
    form = Array.isArray(res.body) ? 'json array' : `{${Object.keys(res.body).sort().join(',')}}`;
  } else if (media.includes('xml')) form = /<Error>/.test(res.text) ? 'xml <Error>' : 'xml';
  else form = media || 'no content type';
  return { op, status: res.status, form, fields };
}

/** Keep the shape of a response (only while a drift check records shapes). */
export function recordShape(op: string, res: Observed & { body?: unknown }): void {
  if (op.startsWith('admin:') || !current?.shapes) return;
  current.shapes.push(shapeOf(op, res));
}
