import { spawn } from 'node:child_process';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { ContractSettingsError, checkSettings } from '../../contracts/target/settings.js';
import { fromRoot } from '../core/root.js';
import { addSkipReasons } from './junitNotes.js';

export const contractHelp = `Usage: partner-sim contract [options] [-- vitest file/name filters]

Runs the contract suite (contracts/*.test.ts) against a target; every response is checked
against openapi.yaml. Writes JUnit XML and a readable summary under the reports folder.

Options:
  --target <sim|url|live>   sim: an in-process simulator (default) [env CONTRACT_TARGET]
                            url: a running simulator at --base-url
                            live: the real regional service (only live-safe scenarios)
  --base-url <url>          root of the target, e.g. http://127.0.0.1:4010 [env CONTRACT_BASE_URL]
  --region <us|jp>          region (live host, or the simulator's /jp mount) [env CONTRACT_REGION]
  --live                    same as --target live
  --allow-mutations         live: also run scenarios that bind/unbind/sign devices
                            [env CONTRACT_ALLOW_MUTATIONS=1]
  --reports-dir <dir>       where reports go (default: reports) [env CONTRACT_REPORTS_DIR]
  --help                    show this help

Live target settings (environment): PARTNER_CLIENT_ID, PARTNER_SECRET_KEY, PARTNER_API_KEY,
PARTNER_USER_ID (required); CONTRACT_SN_BOUND_OTHER, CONTRACT_SN_UNBOUND,
CONTRACT_SN_NEVER_BOUND, CONTRACT_SN_UNKNOWN (device serials per state; scenarios needing an
unset one are skipped with the reason); CONTRACT_AUDIO_URL (audio for transcription);
CONTRACT_RATE_PER_SECOND (default 2). url target: CONTRACT_ADMIN_TOKEN if the simulator
requires one.
`;

export interface RunOptions {
  env?: NodeJS.ProcessEnv;
  /** 'inherit' for the CLI; tests collect the output instead. */
  onOutput?: (chunk: string) => void;
}

/** The vitest command line and environment for a contract run (exported for tests). */
export function plan(argv: string[], baseEnv: NodeJS.ProcessEnv): { args: string[]; env: NodeJS.ProcessEnv } {
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
      help: { type: 'boolean', short: 'h' },
    },
  });
  const env: NodeJS.ProcessEnv = { ...baseEnv };
  if (values.live) env.CONTRACT_TARGET = 'live';
  if (values.target) env.CONTRACT_TARGET = values.target;
  if (values['base-url']) env.CONTRACT_BASE_URL = values['base-url'];
  if (values.region) env.CONTRACT_REGION = values.region;
  if (values['allow-mutations']) env.CONTRACT_ALLOW_MUTATIONS = '1';
  env.CONTRACT_TARGET ??= 'sim';
  const reports = resolve(values['reports-dir'] ?? env.CONTRACT_REPORTS_DIR ?? fromRoot('reports'));
  env.CONTRACT_REPORTS_DIR = reports;
  checkSettings(env);
  const args = [
    fromRoot('node_modules', 'vitest', 'vitest.mjs'),
    'run',
    '--project',
    'contracts',
    '--reporter=default',
    '--reporter=junit',
    `--outputFile.junit=${join(reports, 'contract-junit.xml')}`,
    `--reporter=${fromRoot('contracts', 'reporter', 'summaryReporter.ts')}`,
  ];
  // On live only what is safe is even selected; the scenarios also skip themselves at run time.
  if (env.CONTRACT_TARGET === 'live') {
    const mutations = env.CONTRACT_ALLOW_MUTATIONS === '1' || env.CONTRACT_ALLOW_MUTATIONS === 'true';
    args.push(`--tags-filter=${mutations ? 'live-safe || mutates' : 'live-safe'}`);
  }
  args.push(...positionals);
  return { args, env };
}

/** Run the suite in a child vitest process; resolves with its exit code (2 for bad settings). */
export async function runContract(argv: string[], opts: RunOptions = {}): Promise<number> {
  const out = opts.onOutput ?? ((s: string) => process.stdout.write(s));
  if (argv.includes('--help') || argv.includes('-h')) {
    out(contractHelp);
    return 0;
  }
  let planned: ReturnType<typeof plan>;
  try {
    planned = plan(argv, opts.env ?? process.env);
  } catch (e) {
    const err = e as Error & { code?: string };
    if (e instanceof ContractSettingsError || err.code?.startsWith('ERR_PARSE_ARGS')) {
      (opts.onOutput ?? ((s: string) => process.stderr.write(s)))(
        `partner-sim contract: ${err.message}\nRun 'partner-sim contract --help' for the options.\n`,
      );
      return 2;
    }
    throw e;
  }
  const child = spawn(process.execPath, planned.args, {
    cwd: fromRoot(),
    env: planned.env,
    stdio: opts.onOutput ? ['ignore', 'pipe', 'pipe'] : 'inherit',
  });
  if (opts.onOutput) {
    child.stdout?.on('data', (d: Buffer) => opts.onOutput!(d.toString()));
    child.stderr?.on('data', (d: Buffer) => opts.onOutput!(d.toString()));
  }
  const code = await new Promise<number>((done, fail) => {
    child.on('error', fail);
    child.on('close', (c, signal) => done(c ?? (signal ? 1 : 0)));
  });
  await addSkipReasons(planned.env.CONTRACT_REPORTS_DIR!);
  return code;
}
