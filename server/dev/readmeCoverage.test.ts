import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { coverageIndex } from '../../contracts/reporter/coverage.js';
import { fromRoot } from '../core/root.js';
import { COVERAGE_DOCS, coverageExample, EXAMPLE_OPERATION, MARKER, withExample } from './readmeCoverage.js';

/** The fenced lines after the marker. */
function example(name: string): string[] {
  const text = readFileSync(fromRoot(name), 'utf8');
  const at = text.indexOf(MARKER);
  expect(at, `${name} lacks ${MARKER}`).toBeGreaterThan(0);
  const body = text.slice(text.indexOf('```\n', at) + 4);
  return body.slice(0, body.indexOf('\n```')).split('\n');
}

describe('the status coverage example of README and docs/contract-suite.md', () => {
  it.each(
    COVERAGE_DOCS,
  )('%s holds the figures the spec and a run give: declared totals, the operation line, the percentage', (name) => {
    const [head, row] = example(name);
    const spec = coverageIndex([]);
    const m = /^## Status coverage: (\d+)\/(\d+) declared responses exercised \(([\d.]+)%\)$/.exec(
      head ?? '',
    );
    expect(m, head).not.toBeNull();
    const [exercised, declared, percent] = [Number(m![1]), Number(m![2]), Number(m![3])];
    const regenerate =
      'regenerate it: npm run contract -- --reports-dir reports/readme && node dist/server/dev/readmeCoverage.js reports/readme/contract-results.json';
    expect(declared, regenerate).toBe(spec.declared);
    expect(percent, regenerate).toBe(Math.round((exercised / declared) * 1000) / 10);
    // The operation's line lists exactly its declared statuses, and counts its own ticks.
    const op = spec.operations.find((o) => o.operation === EXAMPLE_OPERATION)!;
    const marks = [...(row ?? '').matchAll(/(\d{3}) ([✓✗])/g)];
    expect(
      marks.map((x) => x[1]),
      regenerate,
    ).toEqual(op.statuses.map((s) => s.status));
    const ticks = marks.filter((x) => x[2] === '✓').length;
    expect(row, regenerate).toMatch(new RegExp(`^${EXAMPLE_OPERATION} +.*  \\(${ticks}/${op.declared}\\)$`));
    // And it is what the generator renders for those marks.
    const seen = marks.filter((x) => x[2] === '✓').map((x) => `${EXAMPLE_OPERATION} ${x[1]}`);
    expect(coverageExample(coverageIndex(seen))[1]).toBe(row);
  });

  it('is the same generated block in every document', () => {
    expect(COVERAGE_DOCS.map(example)).toEqual(COVERAGE_DOCS.map(() => example('README.md')));
  });

  it('is rewritten in place by the generator', () => {
    const text = `a\n${MARKER}\n\`\`\`\nold\n\`\`\`\nb\n`;
    expect(withExample(text, ['x', 'y'])).toBe(`a\n${MARKER}\n\`\`\`\nx\ny\n\`\`\`\nb\n`);
  });
});
