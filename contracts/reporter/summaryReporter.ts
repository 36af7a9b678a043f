import { mkdirSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import type { Reporter, TestCase, TestModule } from 'vitest/node';
import { redact, registerSecret } from '../lib/redact.js';

export interface ScenarioResult {
  file: string;
  name: string;
  tags: string[];
  state: 'passed' | 'failed' | 'skipped' | 'pending';
  /** Why it was skipped, or the first lines of the failure (schema violation, status mismatch). */
  reason?: string;
  durationMs: number;
}

/** Why a scenario without a skip note did not run: on live, the runner's tag filter left it out. */
function notSelected(tags: string[]): string {
  if (process.env.CONTRACT_TARGET !== 'live') return 'not selected (name or file filter)';
  if (tags.includes('arranged')) return 'not run on live: needs the simulator control API to arrange state';
  if (tags.includes('mutates'))
    return 'not run on live: changes real state; opt in with CONTRACT_ALLOW_MUTATIONS=1';
  return 'not selected by the live tag filter';
}

const firstLines = (text: string, n = 6) => text.split('\n').slice(0, n).join('\n');

function describeCase(test: TestCase, root: string): ScenarioResult {
  const r = test.result();
  const base = {
    file: relative(root, test.module.moduleId),
    name: test.fullName,
    tags: [...(test.options.tags ?? [])],
    durationMs: Math.round(test.diagnostic()?.duration ?? 0),
  };
  if (r.state === 'skipped') return { ...base, state: 'skipped', reason: r.note ?? notSelected(base.tags) };
  if (r.state === 'failed') {
    const msg = r.errors.map((e) => e.message ?? String(e)).join('\n');
    return { ...base, state: 'failed', reason: redact(firstLines(msg)) };
  }
  return { ...base, state: r.state };
}

export function renderSummary(results: ScenarioResult[], target: string, unhandled: string[]): string {
  const count = (s: ScenarioResult['state']) => results.filter((r) => r.state === s).length;
  const lines = [
    '# Contract suite summary',
    '',
    `Target: ${target}. Scenarios: ${results.length}; passed ${count('passed')}, failed ${count('failed')}, skipped ${count('skipped')}.`,
    '',
  ];
  const section = (title: string, state: ScenarioResult['state'], withReason: boolean) => {
    const mine = results.filter((r) => r.state === state);
    if (mine.length === 0) return;
    lines.push(`## ${title} (${mine.length})`, '');
    for (const r of mine) {
      lines.push(`- ${r.name} [${r.tags.join(', ')}] (${r.file})`);
      if (withReason && r.reason) lines.push(...r.reason.split('\n').map((l) => `    ${l}`));
    }
    lines.push('');
  };
  section('Failed', 'failed', true);
  section('Skipped', 'skipped', true);
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
    for (const k of ['PARTNER_SECRET_KEY', 'PARTNER_API_KEY', 'CONTRACT_ADMIN_TOKEN'])
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
    const target = process.env.CONTRACT_TARGET ?? 'sim';
    const dir = process.env.CONTRACT_REPORTS_DIR ?? join(this.root, 'reports');
    mkdirSync(dir, { recursive: true });
    const summary = renderSummary(results, target, unhandled);
    writeFileSync(join(dir, 'contract-summary.md'), summary);
    writeFileSync(
      join(dir, 'contract-results.json'),
      `${JSON.stringify({ target, results, unhandled }, null, 2)}\n`,
    );
    process.stdout.write(
      `\n${summary}\n(written to ${relative(this.root, dir) || '.'}/contract-summary.md)\n`,
    );
  }
}
