import { apiSpec } from '../../server/spec/openapi.js';

/** One operation of openapi.yaml: its declared response statuses and which the run exercised. */
export interface OperationCoverage {
  operation: string;
  statuses: { status: string; exercised: boolean }[];
  exercised: number;
  declared: number;
}

export interface CoverageIndex {
  operations: OperationCoverage[];
  exercised: number;
  declared: number;
  /** exercised / declared, in percent, one decimal. */
  percent: number;
}

/**
 * The status coverage index (like Microcks' conformance index): per operation of openapi.yaml,
 * each declared response status and whether some scenario got a conforming response with it.
 * `pairs` are `operationId status` strings recorded where responses are validated.
 */
export function coverageIndex(pairs: Iterable<string>): CoverageIndex {
  const seen = new Set(pairs);
  const operations: OperationCoverage[] = [];
  for (const [id, info] of apiSpec().operations) {
    const declared = Object.keys(info.operation.responses ?? {}).filter((s) => /^\d{3}$/.test(s));
    const statuses = declared.map((status) => ({ status, exercised: seen.has(`${id} ${status}`) }));
    const exercised = statuses.filter((s) => s.exercised).length;
    operations.push({ operation: id, statuses, exercised, declared: declared.length });
  }
  const exercised = operations.reduce((n, o) => n + o.exercised, 0);
  const declared = operations.reduce((n, o) => n + o.declared, 0);
  const percent = declared === 0 ? 0 : Math.round((exercised / declared) * 1000) / 10;
  return { operations, exercised, declared, percent };
}

/** `200 ✓ 404 ✓ 422 ✗  (2/3)` */
export function statusLine(o: OperationCoverage): string {
  return `${o.statuses.map((s) => `${s.status} ${s.exercised ? '✓' : '✗'}`).join(' ')}  (${o.exercised}/${o.declared})`;
}

/** The Markdown section of the summary. */
export function renderCoverage(index: CoverageIndex): string[] {
  const width = Math.max(...index.operations.map((o) => o.operation.length), 9);
  return [
    `## Status coverage: ${index.exercised}/${index.declared} declared responses exercised (${index.percent}%)`,
    '',
    '```',
    ...index.operations.map((o) => `${o.operation.padEnd(width)}  ${statusLine(o)}`),
    '```',
    '',
  ];
}
