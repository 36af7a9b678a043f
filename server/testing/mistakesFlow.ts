import { setTimeout as sleep } from 'node:timers/promises';
import { basicAuth, bearer, http } from './http.js';

interface FlowApp {
  client_id: string;
  secret_key: string;
  api_key: string;
}

/**
 * A session with a client's own mistakes beside its good requests, for tests that record it:
 * a wrong secret (401) then the right one, a user-token request with no user_id (422), one
 * with a token the service never issued (401), and a binding lookup for a serial of no known
 * device, and a user token used after it expired (1 s, used 1.2 s later). Returns the statuses the client got, in order.
 */
export async function mistakesFlow(root: string, app: FlowApp): Promise<number[]> {
  const b = `${root}/developer/api`;
  const statuses: number[] = [];
  const step = async (r: Promise<{ status: number; body: unknown }>) => {
    const got = await r;
    statuses.push(got.status);
    return got.body as Record<string, string>;
  };
  const token = (secret: string) =>
    http('POST', `${b}/oauth/partner/access-token`, { headers: basicAuth(app.client_id, secret), form: '' });
  await step(token(`${app.secret_key.slice(0, -1)}9`));
  const partner = (await step(token(app.secret_key))).access_token!;
  const users = `${b}/open/partner/users/access-token`;
  await step(http('POST', users, { headers: bearer(partner), json: {} }));
  await step(
    http('POST', users, { headers: bearer('never-issued-token-0001'), json: { user_id: 'u-0001' } }),
  );
  const user = (await step(http('POST', users, { headers: bearer(partner), json: { user_id: 'u-0001' } })))
    .access_token!;
  await step(
    http('GET', `${b}/open/partner/sdk/binding?type=notepro&sn=8810B302272999ZZ`, { headers: bearer(user) }),
  );
  const brief = (
    await step(http('POST', users, { headers: bearer(partner), json: { user_id: 'u-0001', expires_in: 1 } }))
  ).access_token!;
  await sleep(1200);
  await step(
    http('GET', `${b}/open/partner/sdk/binding?type=notepro&sn=8810B30227290004`, { headers: bearer(brief) }),
  );
  return statuses;
}
