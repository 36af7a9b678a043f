import { mkdirSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import type { Reporter, TestCase, TestModule } from 'vitest/node';
import { redact, registerSecret } from '../lib/redact.js';
import { type CoverageIndex, coverageIndex, renderCoverage } from './coverage.js';
import { renderJunit } from './junit.js';
import type { ScenarioResult } from './scenarioResult.js';

/** Why a scenario without a skip note did not run: on live, the runner's tag filter left it out. */
function notSelected(tags: string[]): string {
  if (process.env.CONTRACT_RECORD_SHAPES === '1' && !tags.includes('live-safe'))
    return 'not run by --compare: only live-safe scenarios are compared';
  if (process.env.CONTRACT_TARGET !== 'live') return 'not selected (name or file filter)';
  if (tags.includes('arranged')) return 'not run on live: needs the simulator control API to arrange state';
  if (tags.includes('mutates'))
    return 'not run on live: changes real state; opt in with CONTRACT_ALLOW_MUTATIONS=1';
  return 'not selected by the live tag filter';
}

const firstLines = (text: string, n = 6) => text.split('\n').slice(0, n).join('\n');

function describeCase(test: TestCase, root: string): ScenarioResult {
  const r = test.result();
  const meta = test.meta();
  const base = {
    file: relative(root, test.module.moduleId),
    name: test.fullName,
    tags: [...(test.options.tags ?? [])],
    durationMs: Math.round(test.diagnostic()?.duration ?? 0),
    ...(meta.exercised ? { exercised: meta.exercised } : {}),
    ...(meta.shapes ? { shapes: meta.shapes } : {}),
  };
  if (r.state === 'skipped') return { ...base, state: 'skipped', reason: r.note ?? notSelected(base.tags) };
  if (r.state === 'failed') {
    const msg = r.errors.map((e) => e.message ?? String(e)).join('\n');
    const failureType = r.errors[0]?.name ?? 'Error';
    return { ...base, state: 'failed', failureType, reason: redact(firstLines(msg)) };
  }
  return { ...base, state: r.state };
}

export function renderSummary(
  results: ScenarioResult[],
  target: string,
  unhandled: string[],
  coverage: CoverageIndex,
): string {
  const count = (s: ScenarioResult['state']) => results.filter((r) => r.state === s).length;
  const lines = [
    '# Contract suite summary',
    '',
    `Target: ${target}. Scenarios: ${results.length}; passed ${count('passed')}, failed ${count('failed')}, skipped ${count('skipped')}.`,
    '',
  ];
  const unreachable = process.env.CONTRACT_UNREACHABLE;
  if (unreachable) lines.push(`**Run failed: ${unreachable}.** No scenario reached the target.`, '');
  const section = (title: string, state: ScenarioResult['state'], withReason: boolean) => {
    const mine = results.filter((r) => r.state === state);
    if (mine.length === 0) return;
    // One reason shared by all (target unreachable): said once, not under every scenario.
    const shared = withReason && mine.length > 1 && mine.every((r) => r.reason === mine[0]!.reason);
    lines.push(`## ${title} (${mine.length})${shared ? `: ${mine[0]!.reason}` : ''}`, '');
    for (const r of mine) {
      lines.push(`- ${r.name} [${r.tags.join(', ')}] (${r.file})`);
      if (withReason && !shared && r.reason) lines.push(...r.reason.split('\n').map((l) => `    ${l}`));
    }
    lines.push('');
  };
  section('Failed', 'failed', true);
  section('Skipped', 'skipped', true);
  lines.push(...renderCoverage(coverage));
  section('Passed', 'passed', false);
  if (unhandled.length > 0)
    lines.push('## Errors outside scenarios', '', ...unhandled.map((u) => `- ${u}`), '');
  return lines.join('\n');
}

/**
 * Writes `contract-summary.md` (which scenarios ran, which were skipped and why, which failed
 * with the schema violation or status mismatch) and `contract-results.json` into
 * CONTRACT_REPORTS_DIR (default `reports/`), and prints the summary.
 */
export default class SummaryReporter implements Reporter {
  private root = process.cwd();

  onInit(ctx: { config: { root: string } }): void {
    this.root = ctx.config.root;
    for (const k of [
      'PARTNER_SECRET_KEY',
      'PARTNER_API_KEY',
      'CONTRACT_ADMIN_TOKEN',
      'PARTNER_SIM_ADMIN_TOKEN',
    ])
      registerSecret(process.env[k]);
  }

  onTestRunEnd(
    modules: ReadonlyArray<TestModule>,
    unhandledErrors: ReadonlyArray<{ message?: string }>,
  ): void {
    const results: ScenarioResult[] = [];
    const moduleErrors: string[] = [];
    for (const m of modules) {
      for (const e of m.errors())
        moduleErrors.push(`${relative(this.root, m.moduleId)}: ${redact(firstLines(e.message ?? ''))}`);
      for (const test of m.children.allTests()) results.push(describeCase(test, this.root));
    }
    const unhandled = [
      ...moduleErrors,
      ...unhandledErrors.map((e) => redact(firstLines(e.message ?? String(e)))),
    ];
    const kind = process.env.CONTRACT_TARGET ?? 'sim';
    const base = process.env.CONTRACT_BASE_URL;
    const target = kind !== 'sim' && base ? `${kind} (${base})` : kind;
    const dir = process.env.CONTRACT_REPORTS_DIR ?? join(this.root, 'reports');
    mkdirSync(dir, { recursive: true });
    const coverage = coverageIndex(results.flatMap((r) => r.exercised ?? []));
    const summary = renderSummary(results, target, unhandled, coverage);
    writeFileSync(join(dir, 'contract-summary.md'), summary);
    writeFileSync(
      join(dir, 'contract-results.json'),
      `${JSON.stringify({ target, unreachable: process.env.CONTRACT_UNREACHABLE, coverage, results, unhandled }, null, 2)}\n`,
    );
    writeFileSync(join(dir, 'contract-junit.xml'), renderJunit(results, target, coverage));
    process.stdout.write(`\n${summary}\n(written to ${join(dir, 'contract-summary.md')})\n`);
  }
}
