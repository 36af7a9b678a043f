import type { HarEntry } from './har.js';

/** One place the recording's upstream answered outside openapi.yaml (`_violations`). */
export interface RecordedViolation {
  exchange: string;
  operation: string;
  status: number;
  violation: string;
}

/** The violations the recorder found as the answers passed, labelled as the report labels exchanges. */
export function recordedViolations(entries: HarEntry[]): RecordedViolation[] {
  return entries.flatMap((e, i) =>
    (e._violations ?? []).map((violation) => ({
      exchange: `#${i + 1}`,
      operation: e._operation ?? '',
      status: e.response.status,
      violation,
    })),
  );
}

const cell = (s: string): string => s.replace(/\|/g, '\\|').replace(/\n/g, ' ');

/** Their own section of the Markdown report: not drift of the simulator, but of live from its spec. */
export function renderViolations(list: RecordedViolation[]): string {
  const head = '\n## Live answered outside the spec\n\n';
  if (list.length === 0) return `${head}None: every recorded answer conforms to openapi.yaml.\n`;
  const rows = list.map(
    (v) => `| ${v.exchange} | ${cell(v.operation)} | ${v.status} | ${cell(v.violation)} |`,
  );
  return `${head}| exchange | operation | status | violation |\n|---|---|---|---|\n${rows.join('\n')}\n`;
}
