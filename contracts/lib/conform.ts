import { type ObservedAnswer, observedViolations } from '../../server/spec/conformance.js';
import { adminSpec, apiSpec, type SpecIndex } from '../../server/spec/openapi.js';

export type Observed = ObservedAnswer;

/** `admin:<operationId>` names an operation of the control API; anything else, openapi.yaml. */
export function specOf(op: string): { spec: SpecIndex; id: string } {
  return op.startsWith('admin:') ? { spec: adminSpec(), id: op.slice(6) } : { spec: apiSpec(), id: op };
}

/**
 * Every way an observed response breaks the operation's declared response (the server's one
 * checker, server/spec/conformance.ts): status, content type, body schema, declared headers,
 * S3 XML. Empty when it conforms. Messages name the field.
 */
export function violations(op: string, res: Observed): string[] {
  const { spec, id } = specOf(op);
  return observedViolations(spec, spec.get(id), res);
}
