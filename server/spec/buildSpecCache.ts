import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { parse } from 'yaml';
import { fromRoot } from '../core/root.js';
import { sha256, specCachePath } from './openapi.js';

/**
 * Build step (`npm run build`): parse openapi.yaml and admin.openapi.yaml once and store the
 * result as JSON keyed by the YAML's hash, so the simulator starts without a YAML parse.
 */
for (const file of [fromRoot('openapi.yaml'), fromRoot('server', 'admin.openapi.yaml')]) {
  const source = readFileSync(file, 'utf8');
  const out = specCachePath(file);
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, JSON.stringify({ sha256: sha256(source), doc: parse(source) }));
}
