import type { Request } from 'express';
import { decodeJwt } from '../domain/jwt.js';
import { credentialsOf } from './authScheme.js';

/**
 * The client id a request claims before (or without) passing authentication: Basic user
 * name, `X-Client-Id`, or the unverified `client_id` claim of a bearer token. Used only to
 * file a refused request (401) under the app it was meant for, so a partner can see what
 * their client sent; never to authorize anything.
 */
export function claimedClientId(req: Request): string | undefined {
  const id = req.headers['x-client-id'];
  if (typeof id === 'string' && id) return id;
  const basic = credentialsOf(req.headers.authorization, 'Basic');
  if (basic !== undefined) {
    const user = Buffer.from(basic, 'base64').toString('utf8').split(':')[0];
    return user || undefined;
  }
  const bearer = credentialsOf(req.headers.authorization, 'Bearer');
  if (bearer === undefined) return undefined;
  try {
    const claim = decodeJwt(bearer).client_id;
    return typeof claim === 'string' ? claim : undefined;
  } catch {
    return undefined;
  }
}
