import { create } from 'xmlbuilder2';
import { type CoverageIndex, statusLine } from './coverage.js';
import type { ScenarioResult } from './scenarioResult.js';

/**
 * JUnit XML written from the reporter's own results (vitest's JUnit reporter drops skip
 * reasons and knows nothing of coverage). xmlbuilder2 does the escaping and structure.
 * Coverage goes into each suite's `<properties>`, where CI dashboards show it.
 */
export function renderJunit(results: ScenarioResult[], target: string, coverage: CoverageIndex): string {
  const byFile = new Map<string, ScenarioResult[]>();
  for (const r of results) byFile.set(r.file, [...(byFile.get(r.file) ?? []), r]);
  const count = (rs: ScenarioResult[], s: ScenarioResult['state']) => rs.filter((r) => r.state === s).length;
  const seconds = (rs: ScenarioResult[]) => (rs.reduce((n, r) => n + r.durationMs, 0) / 1000).toFixed(3);
  const root = create({ version: '1.0', encoding: 'UTF-8' }).ele('testsuites', {
    name: 'partner-sim contract suite',
    tests: results.length,
    failures: count(results, 'failed'),
    errors: 0,
    skipped: count(results, 'skipped'),
    time: seconds(results),
  });
  for (const [file, rs] of byFile) {
    const suite = root.ele('testsuite', {
      name: file,
      tests: rs.length,
      failures: count(rs, 'failed'),
      errors: 0,
      skipped: count(rs, 'skipped'),
      time: seconds(rs),
    });
    const props = suite.ele('properties');
    props.ele('property', { name: 'target', value: target });
    props.ele('property', {
      name: 'coverage.total',
      value: `${coverage.exercised}/${coverage.declared} (${coverage.percent}%)`,
    });
    for (const o of coverage.operations)
      props.ele('property', { name: `coverage.${o.operation}`, value: statusLine(o) });
    for (const r of rs) {
      const tc = suite.ele('testcase', {
        classname: file,
        name: r.name,
        time: (r.durationMs / 1000).toFixed(3),
      });
      if (r.state === 'failed') {
        const reason = r.reason ?? 'failed';
        tc.ele('failure', {
          message: `failed: ${reason.split('\n')[0]}`,
          type: r.failureType ?? 'failure',
        }).txt(reason);
      } else if (r.state === 'skipped' || r.state === 'pending') {
        tc.ele('skipped', { message: r.reason ?? 'skipped' });
      }
    }
  }
  return root.end({ prettyPrint: true });
}
