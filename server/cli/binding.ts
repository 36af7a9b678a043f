import { PartnerClient } from '../client/partnerClient.js';
import {
  type BindingResponse,
  type DeviceType,
  deviceTypeOf,
  planRecovery,
  type RecoveryPlan,
} from '../client/recovery.js';
import { describeFailure } from './failure.js';
import { type CommandIo, ENV_HELP, processIo, TARGET_HELP } from './io.js';
import { parseArgs } from './parseArgs.js';
import { jsonFlag, targetFlags } from './sharedFlags.js';
import { openTarget, UsageError } from './target.js';

export const bindingHelp = `Usage: partner-sim binding <sn> [--type notepro|notepins] [--target sim|URL|live [--region us|jp|eu|sg]] [--json]

Queries a device's remote binding and prints its state (is_bind true/false/null), the
de-duplicated bind history with how often each account appears, and the recovery verdict
(the SDK recovery rules: refuse while bound, else try the distinct accounts newest first).

Options:
  --type <notepro|notepins> device type (default: from the serial, 881 notepro, 882 notepins)
${TARGET_HELP}
  --json                    print {sn, type, binding, history, verdict} as JSON
  -h, --help                show this help

${ENV_HELP}
`;

/** Distinct accounts, newest first, with how many bind events each has. */
export function historyCounts(history: string[]): { account: string; count: number }[] {
  const counts = new Map<string, number>();
  for (const a of history) counts.set(a, (counts.get(a) ?? 0) + 1);
  return [...counts].map(([account, count]) => ({ account, count }));
}

const STATE: Record<string, string> = {
  true: 'bound to an account',
  false: 'unbound',
  null: 'signed, never bound',
};

export function verdictLine(plan: RecoveryPlan): string {
  if (plan.action === 'refuse') return 'refuse: bound to an account, the owner must unbind first';
  if (plan.action === 'none') return 'nothing to try: no bind history';
  const more = plan.omitted > 0 ? ` (${plan.omitted} more left out)` : '';
  return `try ${plan.candidates.length} account${plan.candidates.length === 1 ? '' : 's'}, newest first${more}`;
}

export function formatBinding(sn: string, type: DeviceType, b: BindingResponse, plan: RecoveryPlan): string {
  const history = historyCounts(b.bind_history);
  return [
    `${sn} (${type})`,
    `state:   is_bind ${String(b.is_bind)} (${STATE[String(b.is_bind)]})`,
    `history: ${b.bind_history.length} bind event${b.bind_history.length === 1 ? '' : 's'}, ${history.length} distinct account${history.length === 1 ? '' : 's'}`,
    ...history.map((h) => `  ${h.account}  ×${h.count}`),
    `verdict: ${verdictLine(plan)}`,
    ...(plan.action === 'try' ? plan.candidates.map((c, i) => `  ${i + 1}. ${c}`) : []),
    '',
  ].join('\n');
}

export async function runBinding(argv: string[], io: CommandIo = processIo()): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      type: { type: 'string' },
      ...targetFlags,
      ...jsonFlag,
      help: { type: 'boolean' },
    },
  });
  if (values.help) {
    io.stdout.write(bindingHelp);
    return 0;
  }
  let stop = async () => {};
  try {
    const [sn, ...extra] = positionals;
    if (!sn || extra.length > 0) throw new UsageError('expects exactly one device serial (see --help)');
    if (values.type !== undefined && values.type !== 'notepro' && values.type !== 'notepins')
      throw new UsageError(`--type must be notepro or notepins (got '${values.type}')`);
    let type: DeviceType;
    try {
      type = (values.type as DeviceType | undefined) ?? deviceTypeOf(sn);
    } catch (e) {
      throw new UsageError(`${(e as Error).message}; pass --type`);
    }
    const t = await openTarget(values.target, io.env, {}, values.region);
    stop = t.stop;
    const binding = await new PartnerClient(t).binding(sn, type);
    const plan = planRecovery(binding);
    io.stdout.write(
      values.json
        ? `${JSON.stringify({ sn, type, binding, history: historyCounts(binding.bind_history), verdict: plan }, null, 2)}\n`
        : formatBinding(sn, type, binding, plan),
    );
    return 0;
  } catch (e) {
    const { line, code } = describeFailure(e, values.target);
    io.stderr.write(`partner-sim binding: ${line}\n`);
    return code;
  } finally {
    await stop();
  }
}
