/** Small fetch helpers for tests that speak real HTTP to a simulator. */
export interface HttpResult<T = unknown> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

// biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary JSON bodies; assertions narrow them
export async function http<T = any>(
  method: string,
  url: string,
  opts: {
    json?: unknown;
    form?: Record<string, string> | string;
    headers?: Record<string, string>;
    raw?: string | Uint8Array;
  } = {},
): Promise<HttpResult<T>> {
  const headers: Record<string, string> = { ...opts.headers };
  let body: string | Uint8Array | undefined = opts.raw;
  if (opts.json !== undefined) {
    headers['content-type'] ??= 'application/json';
    body = JSON.stringify(opts.json);
  } else if (opts.form !== undefined) {
    headers['content-type'] ??= 'application/x-www-form-urlencoded';
    body = typeof opts.form === 'string' ? opts.form : new URLSearchParams(opts.form).toString();
  }
  const res = await fetch(url, { method, headers, body });
  const text = await res.text();
  let parsed: unknown = text;
  if ((res.headers.get('content-type') ?? '').includes('json') && text) parsed = JSON.parse(text);
  return { status: res.status, headers: res.headers, body: parsed as T, text };
}

export const basicAuth = (id: string, secret: string): Record<string, string> => ({
  authorization: `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`,
});

export const bearer = (token: string): Record<string, string> => ({ authorization: `Bearer ${token}` });

/** Demo app credentials as loaded from fixtures/apps.json. */
export const DEMO_US = {
  client_id: 'demo-client-us',
  secret_key: 'demo-secret-us-0000',
  api_key: 'demo-api-key-us-0000',
};
export const DEMO_JP = {
  client_id: 'demo-client-jp',
  secret_key: 'demo-secret-jp-0000',
  api_key: 'demo-api-key-jp-0000',
};
export const OTHER_US = {
  client_id: 'other-partner-us',
  secret_key: 'other-secret-us-0000',
  api_key: 'other-api-key-us-0000',
};

/** The partner-token exchange with Basic credentials and an empty form body, as sent. */
export const exchangeToken = (
  api: string,
  app: { client_id: string; secret_key: string },
  headers: Record<string, string> = {},
) =>
  http('POST', `${api}/oauth/partner/access-token`, {
    headers: { ...basicAuth(app.client_id, app.secret_key), ...headers },
    form: {},
  });

/** Exchange app credentials and mint a user token: the first two steps of every partner flow. */
export async function userToken(
  api: string,
  app: { client_id: string; secret_key: string },
  userId = 'partner-user-0001',
): Promise<{ partner: string; user: string }> {
  const p = await exchangeToken(api, app);
  if (p.status !== 200) throw new Error(`partner token: ${p.status} ${p.text}`);
  const u = await http<{ access_token: string }>('POST', `${api}/open/partner/users/access-token`, {
    headers: bearer(p.body.access_token),
    json: { user_id: userId },
  });
  if (u.status !== 200) throw new Error(`user token: ${u.status} ${u.text}`);
  return { partner: p.body.access_token, user: u.body.access_token };
}
