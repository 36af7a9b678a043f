import { redactHeaders, redactText } from '../../server/control/redact.js';

/**
 * Secrets never reach a log, a failure message or a report. Every message the suite builds
 * about a request or a response goes through `redact` first. The patterns are the
 * simulator's one redactor (server/control/redact.ts); the suite adds only the values it
 * was handed (client secret, API key, tokens), which may have any shape.
 */
export { redactHeaders };

const known = new Set<string>();

/** Remember a secret value (client secret, API key, a token) so it is masked wherever it appears. */
export function registerSecret(value: string | undefined): void {
  if (value && value.length >= 6) known.add(value);
}

/** Mask every registered secret, then every secret shape the one redactor knows. */
export function redact(text: string): string {
  let out = text;
  for (const s of known) out = out.split(s).join('[redacted]');
  return redactText(out);
}

/** A value from a failed assertion with its secrets masked (objects keep their shape for the diff). */
function redactValue(value: unknown): unknown {
  if (typeof value === 'string') return redact(value);
  if (value === null || typeof value !== 'object') return value;
  try {
    return JSON.parse(redact(JSON.stringify(value)));
  } catch {
    return '[unprintable value, redacted]';
  }
}

/**
 * Make an error thrown by a scenario safe to report. A failed `expect` carries the compared
 * values (`actual`, `expected`) from which vitest prints its diff to the console and the
 * JUnit report, so a response body with a token in it would land there in clear; its message
 * and stack are masked as well. A skip (`ctx.skip`) passes through untouched.
 */
export function redactError(e: unknown): unknown {
  if (!(e instanceof Error) || (e as { code?: unknown }).code === 'VITEST_PENDING') return e;
  const err = e as Error & { actual?: unknown; expected?: unknown };
  err.message = redact(err.message);
  if (err.stack) err.stack = redact(err.stack);
  if ('actual' in err) err.actual = redactValue(err.actual);
  if ('expected' in err) err.expected = redactValue(err.expected);
  return err;
}
