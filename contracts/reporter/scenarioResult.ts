import type { ResponseShape } from '../lib/record.js';

/** One scenario's outcome as the summary reporter keeps it (summary, JUnit, coverage, drift). */
export interface ScenarioResult {
  file: string;
  name: string;
  tags: string[];
  state: 'passed' | 'failed' | 'skipped' | 'pending';
  /** Why it was skipped, or the first lines of the failure (schema violation, status mismatch). */
  reason?: string;
  durationMs: number;
  /** Error name of a failure (`TargetUnavailable`, `ContractViolation`, `AssertionError`). */
  failureType?: string;
  /** `operationId status` pairs whose responses conformed (the coverage index). */
  exercised?: string[];
  /** Response shapes, recorded for a drift check (--compare). */
  shapes?: ResponseShape[];
}
