import { type ChildProcess, type SpawnOptions, spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ContractSettingsError } from '../../contracts/target/settings.js';
import { fromRoot } from '../core/root.js';
import { wantsColor } from '../core/wantsColor.js';
import { compareRuns } from './drift.js';
import { type Plan, plan, type RunPlan, VitestMissingError, vitestArgs } from './plan.js';
import { probe, targetUrl } from './probe.js';
import { loopbackSimulatorCa, trusting } from './simulatorCa.js';

export const contractHelp = `Usage: partner-sim contract [options] [-- vitest file/name filters]

Runs the contract suite against a target; every response is checked against openapi.yaml.
Writes a readable summary (with the status coverage index), contract-results.json and JUnit
XML under the reports folder. An unreachable target fails the run (exit 1).

Options:
  --target <sim|url|live|URL>
                            sim: an in-process simulator (default) [env CONTRACT_TARGET]
                            url: a running simulator at --base-url (a URL here means the same)
                            live: the real regional service (only live-safe scenarios)
  --base-url <url>          root of the target, e.g. http://127.0.0.1:4010 [env CONTRACT_BASE_URL]
                            A simulator with --https: the hosts it intercepts (--storage-host)
                            are reached through its own proxy, trusting its CA; an https:// one
                            on this machine is trusted from its /ca page. Nothing to set.
  --region <us|jp|eu|sg>    region: live's host, or the simulator's /jp, /eu, /sg mount
                            [env CONTRACT_REGION]
  --live                    same as --target live
  --allow-mutations         live: also run scenarios that bind/unbind/sign devices
                            [env CONTRACT_ALLOW_MUTATIONS=1]
  --compare <sim|live|URL>  drift check: run the live-safe scenarios against --target and this
                            target, and report per operation where the answers differ in shape
                            (status, fields present or missing, types, error body form; never
                            values) in contract-drift.md / .json. Exit 0 with the report.
  --fail-on-drift           with --compare: exit 1 when any drift is found
  --reports-dir <dir>       where reports go (default: ./reports) [env CONTRACT_REPORTS_DIR]
  --admin-token <token>     url target: the simulator's --admin-token
                            [env CONTRACT_ADMIN_TOKEN, else PARTNER_SIM_ADMIN_TOKEN]
  --json                    print contract-results.json (with --compare: contract-drift.json)
                            on stdout when the run ends; the run's progress goes to stderr
  -h, --help                show this help

Live target settings (environment): PARTNER_CLIENT_ID, PARTNER_SECRET_KEY, PARTNER_API_KEY,
PARTNER_USER_ID (required); CONTRACT_SN_BOUND_OTHER, CONTRACT_SN_UNBOUND,
CONTRACT_SN_NEVER_BOUND, CONTRACT_SN_UNKNOWN (device serials per state; scenarios needing an
unset one are skipped with the reason); CONTRACT_AUDIO_URL (audio for transcription);
CONTRACT_RATE_PER_SECOND (default 2). CONTRACT_PROBE_TIMEOUT_MS: reachability probe timeout (default 5000).
`;

export interface RunOptions {
  env?: NodeJS.ProcessEnv;
  /** 'inherit' for the CLI; tests collect the output instead. */
  onOutput?: (chunk: string) => void;
  /** A compiled suite's folder (default: the package's dist/contracts); tests pass the current sources'. */
  suite?: string;
  /** How the vitest child starts: tests pass theirs, so that no run outlives its test (issue 45). */
  spawn?: (command: string, args: readonly string[], options: SpawnOptions) => ChildProcess;
}

/** One vitest child for one target; resolves with its exit code (1 when the target is unreachable). */
async function runOne(
  p: Plan,
  run: RunPlan,
  opts: RunOptions,
): Promise<{ code: number; unreachable: boolean }> {
  const err = opts.onOutput ?? ((s: string) => process.stderr.write(s));
  const url = targetUrl(run.env);
  let env = { ...run.env };
  // vitest colours a pipe when CI is set: escape codes in a CI log. Colour for a terminal only.
  if (!wantsColor(opts.onOutput ? {} : process.stdout, env)) env.NO_COLOR = '1';
  let unreachable = false;
  let cleanup = async () => {};
  if (url) {
    const timeoutMs = Number(env.CONTRACT_PROBE_TIMEOUT_MS ?? 5000);
    // An https simulator on this machine: its CA, from the instance itself, trusted for the run.
    const ca = run.env.CONTRACT_TARGET === 'url' ? await loopbackSimulatorCa(url, timeoutMs) : undefined;
    if (ca) ({ env, cleanup } = await trusting(env, ca));
    const reason = await probe(url, timeoutMs, ca);
    if (reason) {
      unreachable = true;
      const line = `target unreachable: ${url}: ${reason}`;
      err(`partner-sim contract: ${line}\n`);
      // The scenarios still run, each failing at once with this line, so every report says so.
      env.CONTRACT_UNREACHABLE = line;
    }
  }
  const child = (opts.spawn ?? spawn)(process.execPath, vitestArgs(p, { defaultReporter: !unreachable }), {
    cwd: fromRoot(),
    env,
    // With --json the run's own output goes to stderr: stdout is the one JSON document.
    stdio: opts.onOutput
      ? ['ignore', 'pipe', 'pipe']
      : p.json
        ? ['ignore', process.stderr, 'inherit']
        : 'inherit',
  });
  if (opts.onOutput) {
    child.stdout?.on('data', (d: Buffer) => opts.onOutput!(d.toString()));
    child.stderr?.on('data', (d: Buffer) => opts.onOutput!(d.toString()));
  }
  const code = await new Promise<number>((done, fail) => {
    child.on('error', fail);
    child.on('close', (c, signal) => done(c ?? (signal ? 1 : 0)));
  }).finally(cleanup);
  return { code: unreachable ? 1 : code, unreachable };
}

/** `partner-sim contract`: resolves with the exit code (2 for bad settings). */
export async function runContract(argv: string[], opts: RunOptions = {}): Promise<number> {
  const out = opts.onOutput ?? ((s: string) => process.stdout.write(s));
  if (argv.includes('--help') || argv.includes('-h')) {
    out(contractHelp);
    return 0;
  }
  let planned: Plan;
  try {
    planned = plan(argv, opts.env ?? process.env, opts.suite);
  } catch (e) {
    const err = e as Error & { code?: string };
    if (e instanceof VitestMissingError) {
      (opts.onOutput ?? ((s: string) => process.stderr.write(s)))(`${err.message}\n`);
      return 1;
    }
    if (e instanceof ContractSettingsError || err.code?.startsWith('ERR_PARSE_ARGS')) {
      (opts.onOutput ?? ((s: string) => process.stderr.write(s)))(
        `partner-sim contract: ${err.message}\nRun 'partner-sim contract --help' for the options.\n`,
      );
      return 2;
    }
    throw e;
  }
  const results = [];
  for (const run of planned.runs) results.push(await runOne(planned, run, opts));
  if (!planned.compare) {
    if (planned.json) await printJson(join(planned.reports, 'contract-results.json'), out);
    return results[0]?.code ?? 1;
  }
  // Scenario failures are expected when two targets differ: the drift report is the result.
  if (results.some((r) => r.unreachable)) return 1;
  const [main, other] = planned.runs as [RunPlan, RunPlan];
  const err = opts.onOutput ?? ((s: string) => process.stderr.write(s));
  const drift = await compareRuns(main.reports, other.reports, planned.reports, planned.json ? err : out);
  if (planned.json) await printJson(join(planned.reports, 'contract-drift.json'), out);
  return planned.failOnDrift && drift > 0 ? 1 : 0;
}

/** --json: the report the run wrote, as it is (a run that wrote none prints nothing). */
async function printJson(file: string, out: (s: string) => void): Promise<void> {
  const text = await readFile(file, 'utf8').catch(() => undefined);
  if (text !== undefined) out(text.endsWith('\n') ? text : `${text}\n`);
}
