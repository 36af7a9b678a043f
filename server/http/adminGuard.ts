import type { IncomingHttpHeaders } from 'node:http';
import type { RequestHandler } from 'express';
import type { Config } from '../config.js';
import { bodySent } from '../core/bodySent.js';
import { SimError } from '../core/errors.js';
import { sameSecret } from '../domain/apps.js';
import { credentialsOf } from './authScheme.js';

/**
 * What keeps a web page the developer happens to visit from driving the control API of a
 * simulator on their laptop:
 *
 * - **Host**: only loopback names and addresses, the `--public-url` host, the `--host`
 *   address it is bound to, and `--allowed-hosts` entries. A DNS-rebinding page reaches
 *   127.0.0.1 under its own domain name, so its requests carry that name as `Host`.
 * - **Origin**: when a browser says where a request comes from, that host must pass the same
 *   rule (`Origin: null`, from sandboxed frames and files, never does).
 * - **JSON only**: a mutating request (POST, PUT, PATCH, DELETE) must say
 *   `Content-Type: application/json` when it carries a body, and may name no other content
 *   type even without one. A cross-site HTML form can only send form, multipart or text
 *   bodies; a bodiless call without a content type (curl, SDKs) stays allowed, and a
 *   browser sending one cross-site also sends an `Origin`, refused above.
 * - **Admin token** (`--admin-token`), compared in constant time.
 *
 * `GET /__admin/health` passes all four: container probes call it by whatever address they
 * have, and it tells nothing secret (status, uptime, version, store kind).
 */
export interface HostRule {
  /** `--allowed-hosts '*'`: the Host check is off. */
  any: boolean;
  /** Lower-case host names (IPv6 in brackets), no port. */
  names: ReadonlySet<string>;
}

/** The host name of a `Host` header value (`name[:port]`), or undefined when malformed. */
export function hostnameOf(host: string): string | undefined {
  try {
    const u = new URL(`http://${host}`);
    if (u.username || u.password || u.pathname !== '/' || u.search || u.hash) return undefined;
    // `localhost.` is the same name, anchored at the root.
    return u.hostname.replace(/\.$/, '');
  } catch {
    return undefined;
  }
}

/** localhost, 127.0.0.0/8 and [::1]: names and addresses only this machine answers to. */
function isLoopback(hostname: string): boolean {
  return hostname === 'localhost' || hostname === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(hostname);
}

const WILDCARD_BINDS = new Set(['', '0.0.0.0', '::', '[::]']);

export function hostRule(config: Pick<Config, 'publicUrl' | 'allowedHosts' | 'host'>): HostRule {
  const names = new Set<string>();
  const add = (h: string | undefined) => {
    if (h) names.add(h);
  };
  if (config.publicUrl) add(hostnameOf(new URL(config.publicUrl).host));
  if (!WILDCARD_BINDS.has(config.host))
    add(hostnameOf(config.host.includes(':') ? `[${config.host}]` : config.host));
  for (const h of config.allowedHosts) if (h !== '*') add(hostnameOf(h));
  return { any: config.allowedHosts.includes('*'), names };
}

export function hostAllowed(rule: HostRule, hostname: string | undefined): boolean {
  if (rule.any) return true;
  return hostname !== undefined && (isLoopback(hostname) || rule.names.has(hostname));
}

/**
 * An `Origin` header passes when absent (not a browser) or when its host passes the rule. `*`
 * turns off only the Host check: a page of another origin is still refused (else any web page
 * could reset a simulator started with `--allowed-hosts '*'`), while the simulator's own pages
 * (Origin host = the request's Host), loopback and named hosts pass.
 */
export function originAllowed(rule: HostRule, origin: string | undefined, requestHost?: string): boolean {
  if (origin === undefined) return true;
  let host: string;
  try {
    const u = new URL(origin);
    if (u.protocol !== 'http:' && u.protocol !== 'https:') return false;
    host = u.host;
  } catch {
    return false; // includes `null`
  }
  if (rule.any) {
    const named = hostnameOf(host);
    return (
      host.toLowerCase() === requestHost?.toLowerCase() ||
      (named !== undefined && (isLoopback(named) || rule.names.has(named)))
    );
  }
  return hostAllowed(rule, hostnameOf(host));
}

const MUTATING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** The JSON-only rule for mutating requests (see the module comment). */
export function contentTypeAllowed(method: string, headers: IncomingHttpHeaders): boolean {
  if (!MUTATING.has(method)) return true;
  const media = headers['content-type']?.split(';')[0]?.trim().toLowerCase();
  if (media) return media === 'application/json';
  return !bodySent(headers);
}

const shown = (v: string) => JSON.stringify(v.length > 100 ? `${v.slice(0, 100)}…` : v);

/** The checks above as one middleware for the `/__admin` router, before its body parser. */
export function adminGuard(config: Config): RequestHandler {
  const rule = hostRule(config);
  const expected = config.adminToken || undefined;
  return (req, _res, next) => {
    const health =
      (req.method === 'GET' || req.method === 'HEAD') &&
      req.path.toLowerCase().replace(/\/+$/, '') === '/health';
    if (health) return next();
    const host = req.headers.host ?? '';
    if (!hostAllowed(rule, hostnameOf(host))) {
      throw SimError.forbidden(
        'HOST_NOT_ALLOWED',
        `Host ${shown(host)} is not allowed on the control API; add its name to --allowed-hosts`,
      );
    }
    const origin = req.headers.origin;
    if (!originAllowed(rule, origin, host)) {
      throw SimError.forbidden(
        'ORIGIN_NOT_ALLOWED',
        `Origin ${shown(origin ?? '')} may not call the control API; add its host to --allowed-hosts`,
      );
    }
    // The control API's own document is public (it ships in the package): /docs loads it
    // without the token.
    const publicDoc = req.method === 'GET' && req.path === '/openapi.yaml';
    // The scheme in any case (`bearer` too, RFC 9110); the token compared in constant time.
    const given = credentialsOf(req.headers.authorization, 'Bearer') ?? '';
    if (expected !== undefined && !publicDoc && !sameSecret(given, expected)) {
      throw SimError.unauthorized('ADMIN_TOKEN_REQUIRED', 'Send Authorization: Bearer <admin token>');
    }
    if (!contentTypeAllowed(req.method, req.headers)) {
      throw new SimError(
        415,
        'JSON_REQUIRED',
        `${req.method} on the control API takes an application/json body (or none, without a Content-Type)`,
      );
    }
    next();
  };
}
