/** A whole redactor placeholder (`redacted-N`), the form every redacted secret takes. */
export const PLACEHOLDER = /^redacted-\d+$/;
const PLACEHOLDERS = /redacted-\d+/g;

/**
 * Values a replay learns from answers and carries into later requests. The recording holds
 * what live (or the upstream) answered: ids, URLs, ETags, task ids, and for secrets the
 * recording's placeholders (`redacted-N`). Where the target answered the same step, each
 * string at the same place in both answers (and the ETag and Location headers) pairs the
 * recorded value with the target's; a later request naming the recorded value gets the
 * target's, whole strings first (a presigned URL), then inside longer ones (a path, a header).
 */
export class Carry {
  private readonly values = new Map<string, string>();
  private ordered: [string, string][] | undefined;

  /** Worth carrying: ids, tokens, URLs, ETags; not short words such as a status. */
  private static carries(recorded: string, actual: string): boolean {
    if (recorded === actual || recorded.length < 6) return false;
    return /\d/.test(recorded) && !/^\s|\s$/.test(recorded);
  }

  /** A pairing known before any answer (the recording's app and the replay's). */
  seed(recorded: string, actual: string): void {
    if (recorded === actual || recorded.length < 3) return;
    this.values.set(recorded, actual);
    this.ordered = undefined;
  }

  set(recorded: string, actual: string): void {
    if (!Carry.carries(recorded, actual)) return;
    this.values.set(recorded, actual);
    this.ordered = undefined;
  }

  /** Pair the strings of two JSON answers of one step, member by member. */
  learn(recorded: unknown, actual: unknown, depth = 0): void {
    if (depth > 12) return;
    if (typeof recorded === 'string' && typeof actual === 'string') {
      this.set(recorded, actual);
      return;
    }
    if (Array.isArray(recorded) && Array.isArray(actual)) {
      for (let i = 0; i < Math.min(recorded.length, actual.length, 10_000); i++)
        this.learn(recorded[i], actual[i], depth + 1);
      return;
    }
    if (recorded && actual && typeof recorded === 'object' && typeof actual === 'object') {
      const theirs = actual as Record<string, unknown>;
      for (const [k, v] of Object.entries(recorded as Record<string, unknown>))
        if (k in theirs) this.learn(v, theirs[k], depth + 1);
    }
  }

  /** The target's value for a whole recorded string, if learnt. */
  whole(recorded: string): string | undefined {
    return this.values.get(recorded);
  }

  /** `text` with every learnt value replaced, longest first (a URL before the id inside it). */
  apply(text: string): string {
    const whole = this.values.get(text);
    if (whole !== undefined) return whole;
    this.ordered ??= [...this.values]
      .filter(([from]) => !PLACEHOLDER.test(from))
      .sort((a, b) => b[0].length - a[0].length);
    // Placeholders whole (`redacted-1` is not the start of `redacted-12`), then the rest.
    let out = text.replace(PLACEHOLDERS, (m) => this.values.get(m) ?? m);
    for (const [from, to] of this.ordered) if (out.includes(from)) out = out.split(from).join(to);
    return out;
  }
}
