import { apiKeyHeaders } from '../../server/client/transcription.js';
import type { AppCredentials, Target } from '../target/types.js';
import { registerSecret } from './redact.js';
import { call, type Req, type Res } from './request.js';

export const basic = (id: string, secret: string): Record<string, string> => ({
  authorization: `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`,
});
export const bearer = (token: string): Record<string, string> => ({ authorization: `Bearer ${token}` });
export { apiKeyHeaders };

/** The partner-token exchange with `app`'s credentials (default the target app's), any outcome. */
export function exchange(
  t: Target,
  expect: number,
  opts: { app?: AppCredentials; secret?: string; body?: Pick<Req, 'form' | 'json'> } = {},
): Promise<Res> {
  const app = opts.app ?? t.app;
  return call(t, {
    op: 'getPartnerToken',
    headers: basic(app.client_id, opts.secret ?? app.secret_key),
    ...(opts.body ?? { form: {} }),
    expect,
  });
}

/** Mint a User Token with a Partner Token (or whatever token a scenario wants refused). */
export function mintUserToken(
  t: Target,
  token: string | undefined,
  json: Record<string, unknown>,
  expect: number,
): Promise<Res> {
  return call(t, { op: 'createUserToken', ...(token ? { headers: bearer(token) } : {}), json, expect });
}

/** Exchange the target app's credentials for a Partner Token (checked against the spec). */
export async function partnerToken(t: Target, app: AppCredentials = t.app): Promise<string> {
  const r = await exchange(t, 200, { app });
  registerSecret(r.body.access_token);
  registerSecret(r.body.refresh_token);
  return r.body.access_token;
}

/** A User Token for `userId` (default: the target's test user). */
export async function userToken(t: Target, userId = t.userId, app: AppCredentials = t.app): Promise<string> {
  const r = await mintUserToken(t, await partnerToken(t, app), { user_id: userId }, 200);
  registerSecret(r.body.access_token);
  return r.body.access_token;
}

/** The claims of a JWT (not verified: the suite only reads what the spec documents). */
export function jwtClaims(token: string): Record<string, unknown> {
  const part = token.split('.')[1] ?? '';
  return JSON.parse(Buffer.from(part, 'base64url').toString('utf8')) as Record<string, unknown>;
}
