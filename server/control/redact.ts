/**
 * Redaction shared by the request journal and the request log: neither may ever hold a
 * credential in clear. Names that smell of secrets are redacted whatever their value, and
 * values that look like secrets (JWTs, presigned signatures) are redacted wherever they sit.
 */
export const REDACTED = '[redacted]';

/**
 * What a secret is replaced by: `[redacted]` for the journal and logs; a recording names each
 * distinct secret once (`Pseudonyms`, pseudonyms.ts), so a session still reads in order and a replay can
 * tell which answer a later request's token came from.
 */
export type Namer = (secret: string) => string;
const hidden: Namer = () => REDACTED;

const SECRET_NAME = /token|secret|passw|api[-_]?key|signature|credential|authorization|cookie|session/i;
/** Three base64url segments starting like a JSON header: a JWT. */
const JWT = /eyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]*/g;
/** `name=value` pairs of a query string (presigned URLs carry their signature in one). */
const QUERY_PARAM = /([?&;])([^=&#\s]*)=([^&#\s]*)/g;
/**
 * Parameter names that hold a secret, matched on the DECODED name (a server decodes
 * `X-Amz-Sig%6Eature` to `X-Amz-Signature`, so must the redactor): signatures (S3 `X-Amz-*`,
 * v2 `Signature`, Azure `sig`), credentials, tokens, API keys (`key` is Google's), codes,
 * and every name SECRET_NAME calls secret.
 */
const SECRET_PARAM =
  /token|secret|passw|api[-_]?key|signature|credential|authorization|cookie|session|^(?:sig|key|code|auth|jwt)$/i;
/** Opaque secrets this simulator hands out (refresh tokens, generated keys, webhook secrets). */
const OPAQUE = /\b(?:rt|sk|ak|whsec)_[A-Za-z0-9_-]{16,}/g;

/** Anything any of the three patterns above could match starts like one of these. */
const MAYBE_SECRET = /eyJ|[?&;][^=&#\s]*=|\b(?:rt|sk|ak|whsec)_/i;

export const isSecretName = (name: string): boolean => SECRET_NAME.test(name);

/**
 * A query parameter name as a server reads it: `+` is a space and percent escapes decoded,
 * repeatedly (a proxy may decode once more), until nothing changes; malformed escapes stay.
 */
function decodedName(raw: string): string {
  let name = raw.replaceAll('+', ' ');
  for (let i = 0; i < 3 && name.includes('%'); i++) {
    let next: string;
    try {
      next = decodeURIComponent(name);
    } catch {
      next = name.replace(/%([0-9a-f]{2})/gi, (_m, hex: string) =>
        String.fromCharCode(Number.parseInt(hex, 16)),
      );
    }
    if (next === name) break;
    name = next;
  }
  return name;
}

function redactParam(all: string, sep: string, name: string, value: string, namer: Namer): string {
  if (value === '') return all;
  // Most names (type, sn, partNumber) need no decoding: skip it for them.
  const plain = name.includes('%') || name.includes('+') ? decodedName(name) : name;
  return SECRET_PARAM.test(plain) ? `${sep}${name}=${namer(value)}` : all;
}

/** Remove secret-looking parts from any free text (URLs, header values, body strings). */
export function scrub(text: string, namer: Namer = hidden): string {
  // Most values (user agents, content types, ids) hold none of the three shapes: one cheap
  // test spares them three replace passes. This runs for every header of every request.
  if (!MAYBE_SECRET.test(text)) return text;
  return text
    .replace(JWT, namer)
    .replace(QUERY_PARAM, (all, sep: string, name: string, value: string) =>
      redactParam(all, sep, name, value, namer),
    )
    .replace(OPAQUE, namer);
}

/** A credential after an auth scheme, as free text shows it (`Authorization: Bearer abc`). */
const AUTH_SCHEME = /\b(Bearer|Basic)\s+([A-Za-z0-9._~+/=-]+)/gi;
/** `name=value` with a secret name anywhere in prose (not only after `?`/`&`). */
const LOOSE_PAIR = /(^|[\s,;(])([A-Za-z][\w.%+-]*)=([^\s&#,;)]+)/g;
/** A JSON string member with a secret-smelling name: `"refresh_token":"…"`. */
// Members whose name ends in a secret word; `token_type` or `expires_in` stay readable.
export const JSON_SECRET_NAME =
  /(^|_)(token|secret|secret_key|api_?key|apikey|password|signature|sig|private_?key|credentials?)$/i;
const JSON_SECRET = /("([^"\\]*)"\s*:\s*")((?:[^"\\]|\\.)*)"/g;

/**
 * Free text (error messages, request dumps, reports) with every secret shape masked: what
 * `scrub` masks, plus credentials after an auth scheme, secret `name=value` pairs anywhere
 * and secret-named JSON string members.
 */
export function redactText(text: string, namer: Namer = hidden): string {
  return scrub(text, namer)
    .replace(AUTH_SCHEME, (_all, scheme: string, cred: string) => `${scheme} ${namer(cred)}`)
    .replace(LOOSE_PAIR, (all, pre: string, name: string, value: string) =>
      redactParam(all, pre, name, value, namer),
    )
    .replace(JSON_SECRET, (all, head: string, name: string, value: string) =>
      value && JSON_SECRET_NAME.test(name) ? `${head}${namer(value)}"` : all,
    );
}

/** Request headers, lower-cased, secrets redacted; `Authorization` keeps its scheme. */
export function redactHeaders(
  headers: Record<string, string | string[] | undefined>,
  namer: Namer = hidden,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, raw] of Object.entries(headers)) {
    if (raw === undefined) continue;
    const key = name.toLowerCase();
    const value = Array.isArray(raw) ? raw.join(', ') : raw;
    if (key === 'authorization' || key === 'proxy-authorization') {
      const m = /^(\w+)\s+(.*)$/.exec(value);
      out[key] = m ? `${m[1]} ${namer(m[2]!)}` : namer(value);
    } else if (isSecretName(key)) out[key] = namer(value);
    else out[key] = scrub(value, namer);
  }
  return out;
}
