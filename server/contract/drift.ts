import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ResponseShape } from '../../contracts/lib/record.js';
import type { ScenarioResult } from '../../contracts/reporter/scenarioResult.js';

/** One way two targets answered the same step of a scenario differently. */
export interface Drift {
  operation: string;
  kind: 'status' | 'error form' | 'body form' | 'only in main' | 'only in compare' | 'type' | 'header';
  /** Status on the main target (the compare one differs only for kind `status`). */
  status: number;
  /** The field path, for field and type drift. */
  field?: string;
  main: string;
  compare: string;
  /** The first scenario that showed it. */
  scenario: string;
}

export interface DriftReport {
  main: string;
  compare: string;
  /** Steps compared per operation (same scenario, same position, same operation on both). */
  compared: Record<string, number>;
  drift: Drift[];
}

interface Results {
  target: string;
  results: ScenarioResult[];
}

/** Differences in shape between two answers of one step: status, body form, fields, types; never values. */
export function diffShapes(a: ResponseShape, b: ResponseShape, scenario: string): Drift[] {
  const base = { operation: a.op, status: a.status, scenario };
  if (a.status !== b.status)
    return [{ ...base, kind: 'status', main: String(a.status), compare: String(b.status) }];
  const out: Drift[] = [];
  // A different error body form says it all; its fields would only repeat it.
  if (a.form !== b.form && a.status >= 400)
    return [{ ...base, kind: 'error form', main: a.form, compare: b.form }];
  if (a.form !== b.form) out.push({ ...base, kind: 'body form', main: a.form, compare: b.form });
  for (const [field, type] of Object.entries(a.fields)) {
    const other = b.fields[field];
    if (other === undefined) out.push({ ...base, kind: 'only in main', field, main: type, compare: '-' });
    else if (other !== type) out.push({ ...base, kind: 'type', field, main: type, compare: other });
  }
  for (const [field, type] of Object.entries(b.fields))
    if (!(field in a.fields)) out.push({ ...base, kind: 'only in compare', field, main: '-', compare: type });
  return out;
}

/**
 * Pair up the recorded responses of the two runs: the same scenario, step by step, while both
 * called the same operation (a scenario that stopped early on one side pairs what it reached).
 * Each distinct difference is kept once per operation.
 */
export function driftBetween(main: Results, compare: Results): DriftReport {
  const other = new Map(compare.results.map((r) => [r.name, r.shapes ?? []]));
  const compared: Record<string, number> = {};
  const seen = new Set<string>();
  const drift: Drift[] = [];
  for (const r of main.results) {
    const theirs = other.get(r.name) ?? [];
    const mine = r.shapes ?? [];
    for (let i = 0; i < Math.min(mine.length, theirs.length); i++) {
      const a = mine[i]!;
      const b = theirs[i]!;
      if (a.op !== b.op) break;
      compared[a.op] = (compared[a.op] ?? 0) + 1;
      for (const d of diffShapes(a, b, r.name)) {
        const key = `${d.operation}|${d.kind}|${d.status}|${d.field}|${d.main}|${d.compare}`;
        if (seen.has(key)) continue;
        seen.add(key);
        drift.push(d);
      }
    }
  }
  // Grouped by operation, in the order operations were first compared.
  const order = Object.keys(compared);
  drift.sort((x, y) => order.indexOf(x.operation) - order.indexOf(y.operation) || x.status - y.status);
  return { main: main.target, compare: compare.target, compared, drift };
}

const cell = (s: string) => s.replace(/\|/g, '\\|');

/**
 * How a report names its two sides. `partner-sim compare` (a recording against a target) says
 * which exchange each difference is in; the contract drift check groups by operation.
 */
export interface DriftLabels {
  title: string;
  /** The sentence that names the two sides. */
  sides: string;
  /** A first column with each difference's `scenario` (the exchange of a recording). */
  column?: string;
}

/** The drift report as a Markdown table, operations in the order they were compared. */
export function renderDrift(report: DriftReport, labels?: DriftLabels): string {
  const lines = [
    labels ? `# ${labels.title}` : '# Contract drift',
    '',
    `${labels ? labels.sides : `main: ${report.main}; compare: ${report.compare}.`} Shapes only (status, body form, fields, types), never values.`,
    '',
  ];
  const first = (d: Drift) => (labels?.column ? `| ${cell(d.scenario)} ` : '');
  if (report.drift.length === 0) lines.push('No drift: every compared answer has the same shape.', '');
  else {
    lines.push(
      `${report.drift.length} difference(s):`,
      '',
      `${labels?.column ? `| ${labels.column} ` : ''}| operation | status | difference | field | main | compare |`,
      `${labels?.column ? '|---' : ''}|---|---|---|---|---|---|`,
      ...report.drift.map(
        (d) =>
          `${first(d)}| ${d.operation} | ${d.status} | ${d.kind} | ${cell(d.field ?? '')} | ${cell(d.main)} | ${cell(d.compare)} |`,
      ),
      '',
    );
  }
  const same = Object.keys(report.compared).filter((op) => !report.drift.some((d) => d.operation === op));
  if (same.length > 0) lines.push(`Same shape: ${same.join(', ')}.`, '');
  return lines.join('\n');
}

/** Compare the results of the two runs; writes contract-drift.md/.json into `dir`; returns the drift count. */
export async function compareRuns(
  mainDir: string,
  compareDir: string,
  dir: string,
  out: (s: string) => void,
): Promise<number> {
  const load = async (d: string) =>
    JSON.parse(await readFile(join(d, 'contract-results.json'), 'utf8')) as Results;
  const report = driftBetween(await load(mainDir), await load(compareDir));
  const text = renderDrift(report);
  await writeFile(join(dir, 'contract-drift.md'), text);
  await writeFile(join(dir, 'contract-drift.json'), `${JSON.stringify(report, null, 2)}\n`);
  out(`\n${text}\n(written to ${join(dir, 'contract-drift.md')})\n`);
  return report.drift.length;
}
