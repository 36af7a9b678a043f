// Fetch helpers and shared state of the dashboard. Every data call goes through the guarded
// control API (with the admin token, if one was asked for) or the partner API (with the
// chosen app's own credentials), both same-origin.

export const config = JSON.parse(document.getElementById('sim-config').textContent);

export const state = {
  /** client_id in view, or '' for every app. */
  scope: '',
  /** The apps of the page in view. */
  apps: [],
  /** Every app seen on some page: the app in view keeps its credentials off its page. */
  known: new Map(),
  /** Set when the control API answered 401: polling waits for the token form. */
  needToken: false,
};

const TOKEN_KEY = 'partner-sim-admin-token';
export const adminToken = {
  get: () => sessionStorage.getItem(TOKEN_KEY) ?? '',
  set: (t) => sessionStorage.setItem(TOKEN_KEY, t),
};

export class ApiError extends Error {
  constructor(status, body) {
    super(`HTTP ${status}: ${typeof body === 'string' ? body : JSON.stringify(body)}`);
    this.status = status;
    this.body = body;
  }
}

async function call(url, opts) {
  return (await request(url, opts)).body;
}

async function request(url, { method = 'GET', json, headers = {} } = {}) {
  const h = { ...headers };
  // The admin guard takes only JSON on mutations: say so even for a bodyless call's absence.
  if (json !== undefined) h['content-type'] = 'application/json';
  const res = await fetch(url, {
    method,
    headers: h,
    body: json === undefined ? undefined : JSON.stringify(json),
  });
  const text = await res.text();
  let body = text;
  if ((res.headers.get('content-type') ?? '').includes('json') && text) body = JSON.parse(text);
  if (!res.ok) throw new ApiError(res.status, body);
  return { body, headers: res.headers };
}

/** A control API call: `/__admin` + path, with the admin token when one is set. */
export async function admin(path, opts = {}) {
  return (await adminRequest(path, opts)).body;
}

/** One page of a control API listing: its records and the cursor of the next page, if any. */
export async function adminPage(path) {
  const { body, headers } = await adminRequest(path);
  const link = /<([^>]+)>;\s*rel="next"/.exec(headers.get('link') ?? '');
  return {
    body,
    next: link ? (new URL(link[1], location.href).searchParams.get('cursor') ?? undefined) : undefined,
  };
}

async function adminRequest(path, opts = {}) {
  const token = adminToken.get();
  const headers = token ? { authorization: `Bearer ${token}` } : {};
  try {
    return await request(`/__admin${path}`, { ...opts, headers });
  } catch (e) {
    if (e instanceof ApiError && e.status === 401) state.needToken = true;
    throw e;
  }
}

/** `?client_id=` for the app in view (or an explicit one), or nothing. */
export const scoped = (clientId = state.scope) =>
  clientId ? `?client_id=${encodeURIComponent(clientId)}` : '';

/** `{client_id}` for the app in view, or nothing: the filter of a paged listing. */
export const scope = () => (state.scope ? { client_id: state.scope } : {});

export function appOf(clientId = state.scope) {
  const app = state.apps.find((a) => a.client_id === clientId) ?? state.known.get(clientId);
  if (!app) throw new Error('Choose an app first (App in view, at the top).');
  return app;
}

const apiBase = (app) => config.regions[app.region] ?? config.regions.us;

/** A partner API call as the chosen app's user `userId` (partner token, then user token). */
export async function asUser(userId, method, path, json) {
  const app = appOf();
  const base = apiBase(app);
  const partner = await call(`${base}/oauth/partner/access-token`, {
    method: 'POST',
    json: {},
    headers: { authorization: `Basic ${btoa(`${app.client_id}:${app.secret_key}`)}` },
  });
  const user = await call(`${base}/open/partner/users/access-token`, {
    method: 'POST',
    json: { user_id: userId },
    headers: { authorization: `Bearer ${partner.access_token}` },
  });
  return call(`${base}${path}`, { method, json, headers: { authorization: `Bearer ${user.access_token}` } });
}

/** A partner API call with the app's X-Client-Id / X-Client-Api-Key (transcriptions). */
export function asApp(clientId, path) {
  const app = appOf(clientId);
  return call(`${apiBase(app)}${path}`, {
    headers: { 'x-client-id': app.client_id, 'x-client-api-key': app.api_key },
  });
}

/** Build an element: el('td', {class: 'x'}, 'text', child). Text is never parsed as HTML. */
export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith('on')) node.addEventListener(k.slice(2), v);
    else node.setAttribute(k, v === true ? '' : String(v));
  }
  for (const c of children.flat())
    if (c !== undefined && c !== null) node.append(c instanceof Node ? c : String(c));
  return node;
}

/**
 * Replace a container's content only when the data (or the `context` its builder also reads,
 * e.g. the app in view) changed, so focus survives polling. The key stays in script memory,
 * never in the page: the data may hold credentials the tables do not show.
 */
const renderedKeys = new WeakMap();
export function render(container, data, build, context = '') {
  const key = `${context}\u0000${JSON.stringify(data)}`;
  if (renderedKeys.get(container) === key) return;
  renderedKeys.set(container, key);
  container.replaceChildren(...[build(data)].flat());
}

/** A button's visible words and the rest of its name, read only by screen readers. */
export const named = (visible, rest) => [visible, el('span', { class: 'sr-only' }, rest)];

/**
 * "Copy" beside a value shown once (a new app's credentials, a webhook secret): to the
 * clipboard (the page is a secure context on loopback), else selected for Ctrl+C.
 */
export function copyButton(value, what, shown) {
  const button = el('button', { type: 'button', class: 'copy' }, ...named('Copy', ` ${what}`));
  button.addEventListener('click', async () => {
    try {
      await navigator.clipboard.writeText(value);
      button.firstChild.textContent = 'Copied';
      setTimeout(() => {
        button.firstChild.textContent = 'Copy';
      }, 2000);
    } catch {
      getSelection().selectAllChildren(shown);
    }
  });
  return button;
}

export function fillOptions(select, values) {
  for (const v of values) select.append(el('option', { value: v }, v));
}

/** The poll's own trouble (the control API unreachable): one line under the header. */
export function showError(e) {
  document.getElementById('error').textContent = e ? String(e.message ?? e) : '';
}

/** A refused call in words: status, code and message, each field a 422 named. */
export function describeError(e) {
  if (!(e instanceof ApiError)) return String(e?.message ?? e);
  const b = e.body;
  if (b && Array.isArray(b.detail))
    return `Refused (${e.status}): ${b.detail.map((i) => `${(i.loc ?? []).join('.')}: ${i.msg}`).join('; ')}`;
  if (b && typeof b === 'object') {
    const code = b.detail ?? b.code ?? '';
    return `Refused (${e.status}${code ? ` ${code}` : ''})${b.message ? `: ${b.message}` : ''}`;
  }
  return `Refused (${e.status})${b ? `: ${String(b).slice(0, 300)}` : ''}`;
}

const notices = new WeakMap();

/**
 * Say how an action went right beside what caused it (after `anchor`): an error stays until
 * dismissed or until the next result of that action replaces it; polling never erases it.
 */
export function notify(anchor, kind, text) {
  let box = notices.get(anchor);
  if (!box) {
    box = el('div', { class: 'notice' });
    notices.set(anchor, box);
    anchor.after(box);
  }
  box.className = `notice notice-${kind}`;
  box.setAttribute('role', kind === 'error' ? 'alert' : 'status');
  box.replaceChildren(
    el('span', {}, text),
    el(
      'button',
      { type: 'button', class: 'dismiss', onclick: () => box.remove() || notices.delete(anchor) },
      'Dismiss',
    ),
  );
}

/**
 * Run one dashboard action: its success message (what `work` resolves to, if anything) or its
 * error shown beside `anchor`.
 */
export async function act(anchor, work) {
  try {
    const done = await work();
    if (done) notify(anchor, 'ok', done);
    else {
      notices.get(anchor)?.remove();
      notices.delete(anchor);
    }
  } catch (e) {
    notify(anchor, 'error', describeError(e));
  }
}
