import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { parse } from 'yaml';
import { fromRoot } from '../core/root.js';
import { SIDECAR_SUFFIX, TRANSCRIPT } from '../transcription/transcriptSidecars.js';
import { type FixtureFile, fixtureSchema, VOUCHED_PATH, vouchKey } from './fixtures.js';
import { adminSpec, apiSpec, sha256, specCachePath } from './openapi.js';
import { standaloneModule } from './standaloneValidators.js';
import { prebuiltPath, validatorsFor } from './validators.js';

/**
 * Build step (`npm run build`): parse openapi.yaml and admin.openapi.yaml once and store the
 * result as JSON keyed by the YAML's hash, so the simulator starts without a YAML parse.
 * Then check the packaged fixtures against the admin document and list the valid texts'
 * hashes, so start-up need not compile their schemas again (spec/fixtures.ts). Last, compile
 * every operation's request validators into a module, so a started simulator need not load
 * ajv to check its first requests, and the response validators into another, so a contract
 * run need not load ajv or compile its checks (spec/validators.ts, prebuilt()).
 */
for (const file of [
  fromRoot('openapi.yaml'),
  fromRoot('server', 'admin.openapi.yaml'),
  fromRoot('server', 'device.openapi.yaml'),
]) {
  const source = readFileSync(file, 'utf8');
  const out = specCachePath(file);
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, JSON.stringify({ sha256: sha256(source), doc: parse(source) }));
}

const valid: string[] = [];
const check = (kind: string, file: string, schema: object) => {
  const text = readFileSync(file, 'utf8');
  if (validatorsFor(adminSpec()).validateValue(schema, JSON.parse(text), []).length === 0)
    valid.push(vouchKey(kind, text));
};
for (const file of ['apps.json', 'devices.json'] as FixtureFile[])
  check(file, fromRoot('fixtures', file), fixtureSchema(file));
for (const name of readdirSync(fromRoot('fixtures'), { recursive: true, encoding: 'utf8' }))
  if (name.endsWith(SIDECAR_SUFFIX)) check(SIDECAR_SUFFIX, join(fromRoot('fixtures'), name), TRANSCRIPT);
writeFileSync(
  VOUCHED_PATH,
  JSON.stringify({ admin: sha256(readFileSync(fromRoot('server', 'admin.openapi.yaml'), 'utf8')), valid }),
);

for (const spec of [apiSpec(), adminSpec()])
  for (const part of ['requests', 'responses'] as const)
    writeFileSync(prebuiltPath(spec, part), standaloneModule(validatorsFor(spec), part));
