import type { Request } from 'express';
import { SimError } from '../core/errors.js';
import type { Region } from '../domain/apps.js';
import type { Services } from '../services.js';
import type { OperationInfo } from '../spec/openapi.js';
import { credentialsOf } from './authScheme.js';
import type { AuthInfo } from './types.js';

/** How one operation's callers prove who they are. */
export type Authenticator = (req: Request, services: Services, region: Region) => AuthInfo;

const anyone: Authenticator = () => ({});
const partnerBearer: Authenticator = (req, services, region) => bearer(req, services, region, 'partner');
const userBearer: Authenticator = (req, services, region) => bearer(req, services, region, 'user');

/**
 * The check of the credential an operation's `security` requirement names, chosen once when
 * the operation is mounted; it says who the caller is. Only the parsing of headers lives
 * here; the rules (which secret, which region, which token kind) are the domain's
 * (AppRegistry, TokenService).
 */
export function authenticatorFor(op: OperationInfo): Authenticator {
  const requirement = op.security[0];
  if (!requirement || Object.keys(requirement).length === 0) return anyone;
  const schemes = Object.keys(requirement);
  if (op.id === 'refreshPartnerToken') return refreshCaller;
  if (schemes.includes('basicAuth')) return basic;
  if (schemes.includes('partnerBearer')) return partnerBearer;
  if (schemes.includes('userBearer')) return userBearer;
  if (schemes.includes('clientId') || schemes.includes('clientApiKey')) return apiKey;
  throw new Error(`${op.id}: unsupported security scheme ${schemes.join(', ')}`);
}

function basic(req: Request, services: Services, region: Region): AuthInfo {
  const encoded = credentialsOf(req.headers.authorization, 'Basic');
  if (encoded === undefined || !/^[A-Za-z0-9+/=_-]+$/.test(encoded))
    throw SimError.unauthorized('CLIENT_NOT_FOUND', 'Send Authorization: Basic base64(client_id:secret_key)');
  const decoded = Buffer.from(encoded, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 1)
    throw SimError.unauthorized('CLIENT_NOT_FOUND', 'Basic credentials must be client_id:secret_key');
  return { app: services.apps.authenticateSecret(decoded.slice(0, colon), decoded.slice(colon + 1), region) };
}

/**
 * Refresh: the API reference requires Basic, the quickstart's example sends only the form
 * field. With `--refresh-auth optional` a request without an Authorization header goes on
 * with no app, and the refresh token names its app (TokenService); one that sends Basic is
 * checked as always.
 */
function refreshCaller(req: Request, services: Services, region: Region): AuthInfo {
  if (req.headers.authorization === undefined && services.deps.config.refreshAuth === 'optional') return {};
  return basic(req, services, region);
}

function bearer(req: Request, services: Services, region: Region, use: 'partner' | 'user'): AuthInfo {
  const header = req.headers.authorization;
  if (!header)
    throw SimError.unauthorized('MISSING_CREDENTIALS', `Send Authorization: Bearer <${use} access token>`);
  const token = credentialsOf(header, 'Bearer');
  if (token === undefined)
    throw SimError.unauthorized('INVALID_TOKEN', 'Authorization must be "Bearer <token>"');
  const claims = services.tokens.verify(token, region, use);
  const app = services.apps.get(claims.client_id);
  return use === 'partner' ? { app, partner: claims } : { app, user: claims };
}

function apiKey(req: Request, services: Services, region: Region): AuthInfo {
  const id = req.headers['x-client-id'];
  const key = req.headers['x-client-api-key'];
  if (typeof id !== 'string' || typeof key !== 'string' || !id || !key) {
    throw SimError.unauthorized('MISSING_CREDENTIALS', 'Send both X-Client-Id and X-Client-Api-Key headers');
  }
  return { app: services.apps.authenticateApiKey(id, key, region) };
}
