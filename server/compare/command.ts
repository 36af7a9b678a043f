import { randomBytes } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseArgs } from '../cli/parseArgs.js';
import { adminTokenFlag, targetFlags } from '../cli/sharedFlags.js';
import { type DriftReport, renderDrift } from '../contract/drift.js';
import { KNOWN_REGIONS } from '../core/regions.js';
import { ControlClient } from '../embed/controlClient.js';
import { createFaults, planFaults } from './asFaults.js';
import { AudioBytes } from './audio.js';
import { RecordingError, readRecording } from './har.js';
import { type ExchangeResult, replay } from './replay.js';
import { recordedViolations, renderViolations } from './violations.js';

export const compareHelp = `Usage: partner-sim compare <recording.har> [options]

Replays a recording (serve --record, docs/recording.md) in order against the simulator, as a
throw-away app of its own: values learnt from answers (tokens, FileId/UploadId, ETags, part
and download URLs, task ids) are carried into later requests, and the app's clock is frozen
and moved by exactly the recorded time between requests (the recording's own timeline),
instead of waiting (a URL target whose clock it may not drive is waited for in real time,
and a poll sent again until it shows the status the recording saw). Reports per exchange where the answers differ in shape: status, fields
present or missing, types, error body form, ETag and content type; never values. Markdown
by default, the same form as contract --compare. The answers the recorder found outside
openapi.yaml are listed in a section of their own ("Live answered outside the spec";
"violations" in --json).

Options:
  --target <sim|URL>        sim: an in-memory simulator in this process (default)
                            URL: a running simulator, e.g. http://127.0.0.1:4010
  --base-url <url>          a running simulator at this URL (the same as --target <url>)
  --admin-token <token>     the URL target's --admin-token [env PARTNER_SIM_ADMIN_TOKEN]
  --fail-on-drift           exit 1 when any exchange differs
  --fail-on-violation       exit 1 when the recording holds an answer of the upstream that
                            broke openapi.yaml (listed in their own section of the report)
  --json                    print the report as JSON
  --reports-dir <dir>       also write recording-drift.md and .json there
  --audio <file>            audio the recording uploaded (kept there as length and MD5 only),
                            so the target gets the same bytes; repeatable (the package's
                            fixtures are always looked at)
  --as-faults               turn each recorded failure of the service (timeout, 429, 5xx)
                            the target did not give into a fault rule (operation, status,
                            body, times) on the target; print the rules created on stdout
                            after the report (in --json, as its "faults"), and on stderr why
                            each rule was made and each other recorded failure was not (the
                            target gave it too, or a client's own 4xx: never a rule)
  --app <client_id>         with --as-faults: the app the rules apply to (default: the
                            recording's app)
  --help                    show this help
`;

export interface CompareIo {
  stdout: (s: string) => void;
  stderr: (s: string) => void;
  env: Record<string, string | undefined>;
}

/** The report of a replay in the drift report's form: every difference, tagged with its exchange. */
export function recordingReport(results: ExchangeResult[], recording: string, target: string): DriftReport {
  const compared: Record<string, number> = {};
  for (const r of results) compared[r.operation] = (compared[r.operation] ?? 0) + 1;
  return { main: recording, compare: target, compared, drift: results.flatMap((r) => r.drift) };
}

async function openTarget(raw: string, token: string | undefined) {
  if (raw === 'sim') {
    const { startSimulator } = await import('../embed/startSimulator.js');
    // Every region, the opt-in EU and SG included: a recording names the one it was made in.
    const sim = await startSimulator({ config: { regions: KNOWN_REGIONS } });
    return { root: sim.url, control: sim.control, name: 'sim (in process)', stop: () => sim.stop() };
  }
  let u: URL;
  try {
    u = new URL(raw);
    if (!/^https?:$/.test(u.protocol)) throw new Error('not http');
  } catch {
    throw Object.assign(new Error(`--target must be sim or an http(s) URL, got ${JSON.stringify(raw)}`), {
      code: 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE',
    });
  }
  const root = `${u.origin}${u.pathname.replace(/\/+$/, '').replace(/(\/jp|\/us|\/eu|\/sg)?\/developer\/api$/, '')}`;
  const control = new ControlClient(`${root}/__admin`, token ? { adminToken: token } : {});
  return { root, control, name: root, stop: async () => {} };
}

/**
 * `--as-faults`: the rules for what the simulator cannot explain, created on the target; each
 * rule made and each recorded failure skipped is said on stderr with its reason.
 */
async function asFaults(
  results: ExchangeResult[],
  clientId: string | undefined,
  control: ControlClient,
  io: CompareIo,
): Promise<Awaited<ReturnType<typeof createFaults>>> {
  const plan = planFaults(results, clientId);
  for (const { rule, why } of plan.rules)
    io.stderr(`partner-sim compare: rule ${rule.operation} ${rule.status} x${rule.times}: ${why}\n`);
  for (const s of plan.skipped)
    io.stderr(`partner-sim compare: no rule for ${s.label} ${s.operation} ${s.status}: ${s.why}\n`);
  return createFaults(
    control,
    plan.rules.map((p) => p.rule),
  );
}

export async function runCompare(
  argv: string[],
  io: CompareIo = {
    stdout: (s) => process.stdout.write(s),
    stderr: (s) => process.stderr.write(s),
    env: process.env,
  },
): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      target: targetFlags.target,
      ...adminTokenFlag,
      'fail-on-drift': { type: 'boolean' },
      'fail-on-violation': { type: 'boolean' },
      json: { type: 'boolean' },
      'reports-dir': { type: 'string' },
      audio: { type: 'string', multiple: true },
      'as-faults': { type: 'boolean' },
      app: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    io.stdout(compareHelp);
    return 0;
  }
  if (positionals.length !== 1) {
    io.stderr(`partner-sim compare: give exactly one recording (.har)\n\n${compareHelp}`);
    return 2;
  }
  const file = positionals[0]!;
  let rec: Awaited<ReturnType<typeof readRecording>>;
  try {
    rec = await readRecording(file);
  } catch (e) {
    if (e instanceof RecordingError) {
      io.stderr(`partner-sim compare: ${e.message}\n`);
      return 2;
    }
    throw e;
  }
  const target = await openTarget(values.target, values['admin-token'] ?? io.env.PARTNER_SIM_ADMIN_TOKEN);
  try {
    let app: Awaited<ReturnType<ControlClient['createApp']>>;
    try {
      app = await target.control.createApp({
        client_id: `compare-${randomBytes(4).toString('hex')}`,
        region: rec.region,
      });
    } catch (e) {
      io.stderr(
        `partner-sim compare: target unreachable or refused: ${target.name}: ${(e as Error).message}\n`,
      );
      return 1;
    }
    let results: ExchangeResult[];
    try {
      results = await replay(
        rec,
        { root: target.root, control: target.control, app },
        new AudioBytes(values.audio ?? []),
        (message) => io.stderr(`partner-sim compare: ${message}\n`),
      );
    } finally {
      await target.control.deleteApp(app.client_id).catch(() => {});
    }
    const report = recordingReport(results, file, target.name);
    // Rules are made before the report is printed, so --json can carry them.
    const faults = values['as-faults']
      ? await asFaults(results, values.app ?? rec.app, target.control, io)
      : undefined;
    const violations = recordedViolations(rec.entries);
    const md =
      renderDrift(report, {
        title: 'Recording drift',
        sides: `main: the recording ${file} (${results.length} exchanges); compare: ${target.name}.`,
        column: 'exchange',
      }) + renderViolations(violations);
    const full = { ...report, violations };
    const json = `${JSON.stringify(full, null, 2)}\n`;
    // Data on stdout: the report, then the rules created (one JSON object a line; in --json,
    // the report's `faults`). What was done and why goes to stderr.
    if (values.json) io.stdout(faults ? `${JSON.stringify({ ...full, faults }, null, 2)}\n` : json);
    else io.stdout(md + (faults?.length ? `\n${faults.map((f) => JSON.stringify(f)).join('\n')}\n` : ''));
    if (values['reports-dir']) {
      await mkdir(values['reports-dir'], { recursive: true });
      await writeFile(join(values['reports-dir'], 'recording-drift.md'), md);
      await writeFile(join(values['reports-dir'], 'recording-drift.json'), json);
    }
    if (faults) {
      const where =
        values.target === 'sim'
          ? ' (in the in-process simulator, gone when this run ends: use --target URL to keep them)'
          : '';
      io.stderr(`partner-sim compare: created ${faults.length} fault rule(s) on ${target.name}${where}\n`);
    }
    if (values['fail-on-drift'] && report.drift.length > 0) return 1;
    return values['fail-on-violation'] && violations.length > 0 ? 1 : 0;
  } finally {
    await target.stop();
  }
}
