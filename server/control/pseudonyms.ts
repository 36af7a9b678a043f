import { API_PREFIXES, STORAGE_PREFIX } from '../http/apiPrefixes.js';
import { apiSpec } from '../spec/openapi.js';
import { isSecretName, JSON_SECRET_NAME, type Namer, redactHeaders, redactText } from './redact.js';

const PLACEHOLDER = /^(?:\[redacted\]|redacted-\d+)$/;
/** Subjects the service derives from a partner's user id (JWT `sub`, `bind_history`). */
const SUBJECT = /client_user_[0-9A-Fa-f-]{8,}/g;
const USER_NAME = /^(user_?id|userId)$/;
/** A word of free text: what stands between spaces, quotes, brackets and list separators. */
const WORD = /[^\s"'`,;()<>[\]{}|\\]+/g;
/** A word that is a path, a query or a `name=value`: its values stand between these. */
const PARTS = /([?&#]?)([^?&#]*)/g;
const HAS_PARTS = /[/?&=#]/;
/** Prose ends a word with these: `token abc123 is unknown.` */
const TRAILING = /[.!?:]+$/;
/** Shorter values are too likely to be ordinary words to be looked for elsewhere. */
const MIN_USER = 3;
const MIN_SECRET = 8;

let fixed: ReadonlySet<string> | undefined;
/**
 * The literal segments of every route (`developer`, `api`, `oauth`, `partner`, `access-token`,
 * `storage`, …): a path segment that is one of them is the route, never a value, whatever user
 * id or secret happens to be spelt the same.
 */
function routeWords(): ReadonlySet<string> {
  if (fixed) return fixed;
  const paths = [
    ...API_PREFIXES.map(([p]) => p),
    `${STORAGE_PREFIX}/~s3`,
    ...[...apiSpec().operations.values()].map((op) => op.path),
  ];
  fixed = new Set(paths.flatMap((p) => p.split('/')).filter((s) => s && !s.startsWith('{')));
  return fixed;
}

function decoded(value: string): string | undefined {
  if (!value.includes('%') && !value.includes('+')) return undefined;
  try {
    return decodeURIComponent(value.replaceAll('+', ' '));
  } catch {
    return undefined;
  }
}

/**
 * The placeholders of one recording (`serve --record`): each distinct secret becomes
 * `redacted-N` (URL-safe, so a redacted presigned URL stays a URL) and each user id
 * `recorded-user-0N` (as long as the id; a subject `client_user_recorded-N`), the same value
 * always the same placeholder, so a session still reads in order and `compare` can carry a
 * token from the answer that gave it to the requests that use it.
 *
 * A value seen once is replaced later only where a value stands: a whole header value, a whole
 * JSON string, a query parameter's value, a path segment (not a route's own word), a word of
 * free text. Each is looked up in a Map, so a request costs the same after 12,000 tokens as
 * after 10 (bench/recordRedaction.ts), and a user id `partner` leaves `/oauth/partner/…` and
 * `partnership` alone.
 */
export class Pseudonyms {
  private readonly secrets = new Map<string, string>();
  private readonly users = new Map<string, string>();

  readonly secret: Namer = (value) => {
    if (PLACEHOLDER.test(value)) return value;
    let name = this.secrets.get(value);
    if (name === undefined) {
      name = `redacted-${this.secrets.size + 1}`;
      this.secrets.set(value, name);
    }
    return name;
  };

  user(value: string): string {
    let name = this.users.get(value);
    if (name === undefined) {
      const n = String(this.users.size + 1);
      // As long as the id it stands for, so a length rule answers the replay as it did live.
      const sized = (head: string, len: number) => head + n.padStart(Math.max(0, len - head.length), '0');
      if (value.startsWith('client_user_')) name = sized('client_user_recorded-', value.length);
      else
        name = sized(value.length >= 15 ? 'recorded-user-' : value.length >= 7 ? 'user-' : 'u', value.length);
      this.users.set(value, name);
    }
    return name;
  }

  /**
   * Free text with every secret shape (redact.ts), and every secret and user id seen so far
   * where it stands, replaced: a token of no known shape, once seen in a header or a
   * secret-named member, is hidden wherever it is echoed later (an error message quoting it).
   */
  text(text: string): string {
    return redactText(this.swap(text), this.secret);
  }

  /** Headers as `redactHeaders` leaves them, then the values seen so far where they stand. */
  headers(headers: Record<string, string | string[] | undefined>): Record<string, string> {
    const out = redactHeaders(headers, this.secret);
    for (const [name, value] of Object.entries(out))
      if (name !== 'authorization' && name !== 'proxy-authorization' && !isSecretName(name))
        out[name] = this.swap(value);
    return out;
  }

  /** A parsed JSON body: secret-named members, user ids and every string's secret shapes. */
  json(value: unknown, key = ''): unknown {
    if (typeof value === 'string') {
      if (value && JSON_SECRET_NAME.test(key)) return this.secret(value);
      if (value && USER_NAME.test(key)) return this.user(value);
      return this.known(value) ?? this.text(value);
    }
    if (Array.isArray(value)) return value.map((v) => this.json(v, key));
    if (value === null || typeof value !== 'object') return value;
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, this.json(v, k)]));
  }

  /** The placeholder of a value seen before, or undefined. */
  private known(value: string): string | undefined {
    return (
      (value.length >= MIN_USER ? this.users.get(value) : undefined) ??
      (value.length >= MIN_SECRET ? this.secrets.get(value) : undefined)
    );
  }

  private knownValue(value: string): string | undefined {
    if (this.known(value) !== undefined) return this.known(value);
    const plain = decoded(value);
    return plain === undefined ? undefined : this.known(plain);
  }

  /** Subjects, then each word of `text` (and each value within a URL-like word) looked up. */
  private swap(text: string): string {
    return text.replace(SUBJECT, (s) => this.user(s)).replace(WORD, (w) => this.word(w));
  }

  private word(w: string): string {
    const whole = this.known(w);
    if (whole !== undefined) return whole;
    const bare = w.replace(TRAILING, '');
    const ended = bare === w ? undefined : this.known(bare);
    if (ended !== undefined) return ended + w.slice(bare.length);
    if (!HAS_PARTS.test(w)) return w;
    return w.replace(PARTS, (_all, sep: string, part: string) => sep + this.part(part));
  }

  /** One `name=value` (its value looked up) or path (each segment not a route word). */
  private part(part: string): string {
    const eq = part.indexOf('=');
    if (eq >= 0) {
      const named = this.knownValue(part.slice(eq + 1));
      return named === undefined ? part : part.slice(0, eq + 1) + named;
    }
    const words = routeWords();
    return part
      .split('/')
      .map((seg) => (words.has(seg) ? seg : (this.knownValue(seg) ?? seg)))
      .join('/');
  }
}
