import { type CoverageIndex, statusLine } from './coverage.js';
import type { ScenarioResult } from './scenarioResult.js';
import { type XmlElement, xmlDocument } from './xml.js';

/**
 * JUnit XML written from the reporter's own results (vitest's JUnit reporter drops skip
 * reasons and knows nothing of coverage), in the shape of the JUnit schema CI systems read
 * (testsuites > testsuite > properties, testcase > failure | skipped). Coverage goes into each
 * suite's `<properties>`, where CI dashboards show it.
 */
export function renderJunit(results: ScenarioResult[], target: string, coverage: CoverageIndex): string {
  const byFile = new Map<string, ScenarioResult[]>();
  for (const r of results) byFile.set(r.file, [...(byFile.get(r.file) ?? []), r]);
  const count = (rs: ScenarioResult[], s: ScenarioResult['state']) => rs.filter((r) => r.state === s).length;
  const seconds = (rs: ScenarioResult[]) => (rs.reduce((n, r) => n + r.durationMs, 0) / 1000).toFixed(3);
  const totals = (name: string, rs: ScenarioResult[]) => ({
    name,
    tests: rs.length,
    failures: count(rs, 'failed'),
    errors: 0,
    time: seconds(rs),
  });
  const property = (name: string, value: string): XmlElement => ({
    name: 'property',
    attrs: { name, value },
  });
  const properties: XmlElement = {
    name: 'properties',
    children: [
      property('target', target),
      property('coverage.total', `${coverage.exercised}/${coverage.declared} (${coverage.percent}%)`),
      ...coverage.operations.map((o) => property(`coverage.${o.operation}`, statusLine(o))),
    ],
  };
  const testcase = (file: string, r: ScenarioResult): XmlElement => {
    const tc: XmlElement = {
      name: 'testcase',
      attrs: { classname: file, name: r.name, time: (r.durationMs / 1000).toFixed(3) },
    };
    if (r.state === 'failed') {
      const reason = r.reason ?? 'failed';
      const attrs = { message: `failed: ${reason.split('\n')[0]}`, type: r.failureType ?? 'failure' };
      tc.children = [{ name: 'failure', attrs, text: reason }];
    } else if (r.state === 'skipped' || r.state === 'pending') {
      tc.children = [{ name: 'skipped', attrs: { message: r.reason ?? 'skipped' } }];
    }
    return tc;
  };
  const suites = [...byFile].map(
    ([file, rs]): XmlElement => ({
      name: 'testsuite',
      // `skipped` is a testsuite attribute only (the schema's testsuites has none).
      attrs: { ...totals(file, rs), skipped: count(rs, 'skipped') + count(rs, 'pending') },
      children: [properties, ...rs.map((r) => testcase(file, r))],
    }),
  );
  return xmlDocument({
    name: 'testsuites',
    attrs: totals('partner-sim contract suite', results),
    children: suites,
  });
}
