import { join, resolve } from 'node:path';
import { ContractSettingsError, checkSettings } from '../../contracts/target/settings.js';
import { parseArgs } from '../cli/parseArgs.js';
import { asRegion } from '../core/regions.js';
import { fromRoot } from '../core/root.js';

/** How to get vitest, an optional peer dependency that only `contract` needs. */
export const VITEST_MISSING =
  'partner-sim contract needs vitest (an optional peer dependency): npm i -D vitest@4';

export class VitestMissingError extends Error {
  constructor() {
    super(VITEST_MISSING);
  }
}

/** Throws VitestMissingError unless vitest resolves from here as Node resolves this module's imports. */
function requireVitest(): void {
  try {
    import.meta.resolve('vitest/package.json');
  } catch {
    throw new VitestMissingError();
  }
}

/**
 * Where the suite lives: the compiled scenarios in dist/contracts beside the compiled CLI (also
 * in an installed package or the Docker image), or the folder a caller names (`suite`: tests
 * pass the current sources compiled the same way, so a test never checks a stale build). Plain
 * JS is imported as is, nothing written next to it (the image's /app is read-only). Its entry,
 * run.js, starts vitest with the suite's config; vitest is resolved the way Node resolves the
 * package's imports, so a hoisted install (node_modules/vitest next to node_modules/partner-sim)
 * is found too.
 */
function suiteFiles(suite = fromRoot('dist', 'contracts')): { entry: string; reporter: string } {
  return { entry: join(suite, 'run.js'), reporter: join(suite, 'reporter', 'summaryReporter.js') };
}

export interface RunPlan {
  env: NodeJS.ProcessEnv;
  reports: string;
}

export interface Plan {
  runs: RunPlan[];
  /** The reports folder (with --compare: holds main/, compare/ and the drift report). */
  reports: string;
  filters: string[];
  /** Only live-safe scenarios (live target, or a drift comparison). */
  tagsFilter: string | undefined;
  compare: boolean;
  failOnDrift: boolean;
  /** --json: stdout gets the results (or the drift report) as JSON, everything else stderr. */
  json: boolean;
  /** A compiled suite's folder to run instead of the package's own (tests: the current sources'). */
  suite: string | undefined;
}

/** `sim`, `url`, `live`, or a URL (shorthand for `url` with that base URL). */
function targetEnv(value: string, env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  if (/^https?:\/\//i.test(value)) return { ...env, CONTRACT_TARGET: 'url', CONTRACT_BASE_URL: value };
  return { ...env, CONTRACT_TARGET: value };
}

/** Read the command line and environment into one run (or two with --compare); throws on bad settings. */
export function plan(argv: string[], baseEnv: NodeJS.ProcessEnv, suite?: string): Plan {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      target: { type: 'string' },
      'base-url': { type: 'string' },
      region: { type: 'string' },
      live: { type: 'boolean' },
      'allow-mutations': { type: 'boolean' },
      'reports-dir': { type: 'string' },
      compare: { type: 'string' },
      'fail-on-drift': { type: 'boolean' },
      'admin-token': { type: 'string' },
      json: { type: 'boolean' },
      help: { type: 'boolean' },
    },
  });
  // A value typed on the command line is blamed on its flag, not on the variable it sets.
  for (const flag of ['target', 'compare'] as const) {
    const v = values[flag];
    if (v !== undefined && !/^https?:\/\//i.test(v) && !['sim', 'url', 'live'].includes(v))
      throw new ContractSettingsError(`--${flag} must be sim, url, live or a URL (got '${v}')`);
  }
  if (values.target === 'url' && !values['base-url'] && !baseEnv.CONTRACT_BASE_URL?.trim())
    throw new ContractSettingsError('--target url needs --base-url <url> (or --target <url>)');
  if (values.compare === 'url')
    throw new ContractSettingsError('--compare url names no URL: give --compare <url>');
  if (values.region !== undefined && !asRegion(values.region))
    throw new ContractSettingsError(`--region must be us, jp, eu or sg (got '${values.region}')`);
  let env: NodeJS.ProcessEnv = { ...baseEnv };
  if (values['admin-token']) env.CONTRACT_ADMIN_TOKEN = values['admin-token'];
  if (values.live) env.CONTRACT_TARGET = 'live';
  if (values['base-url']) env.CONTRACT_BASE_URL = values['base-url'];
  if (values.target) env = targetEnv(values.target, env);
  if (values.region) env.CONTRACT_REGION = values.region;
  if (values['allow-mutations']) env.CONTRACT_ALLOW_MUTATIONS = '1';
  env.CONTRACT_TARGET ??= 'sim';
  const reports = resolve(values['reports-dir'] ?? env.CONTRACT_REPORTS_DIR ?? 'reports');
  if (values['fail-on-drift'] && !values.compare)
    throw new ContractSettingsError('--fail-on-drift needs --compare <target>');
  const runs: RunPlan[] = [];
  if (values.compare) {
    // Both runs record response shapes; only live-safe scenarios, so live can be either side.
    const compareEnv = targetEnv(values.compare, { ...env, CONTRACT_BASE_URL: undefined });
    const main = join(reports, 'main');
    const other = join(reports, 'compare');
    runs.push({
      env: { ...env, CONTRACT_REPORTS_DIR: main, CONTRACT_RECORD_SHAPES: '1' },
      reports: main,
    });
    runs.push({
      env: { ...compareEnv, CONTRACT_REPORTS_DIR: other, CONTRACT_RECORD_SHAPES: '1' },
      reports: other,
    });
  } else {
    runs.push({ env: { ...env, CONTRACT_REPORTS_DIR: reports }, reports });
  }
  for (const r of runs) checkSettings(r.env);
  requireVitest(); // before any run: a missing vitest is named once, not per target
  const live = runs.some((r) => r.env.CONTRACT_TARGET === 'live');
  const mutations = env.CONTRACT_ALLOW_MUTATIONS === '1' || env.CONTRACT_ALLOW_MUTATIONS === 'true';
  // On live only what is safe is even selected; the scenarios also skip themselves at run time.
  const tagsFilter = values.compare
    ? 'live-safe'
    : live
      ? mutations
        ? 'live-safe || mutates'
        : 'live-safe'
      : undefined;
  return {
    runs,
    reports,
    filters: positionals,
    tagsFilter,
    compare: Boolean(values.compare),
    failOnDrift: Boolean(values['fail-on-drift']),
    json: Boolean(values.json),
    suite,
  };
}

/** The vitest command line of one run: `vitest run`'s options and filters, after the suite's entry. */
export function vitestArgs(p: Plan, opts: { defaultReporter: boolean }): string[] {
  const files = suiteFiles(p.suite);
  // No results cache: it would be written under the (possibly read-only) install.
  const args = [files.entry, '--no-cache'];
  if (opts.defaultReporter) args.push('--reporter=default');
  args.push(`--reporter=${files.reporter}`);
  if (p.tagsFilter) args.push(`--tags-filter=${p.tagsFilter}`);
  return [...args, ...p.filters];
}
