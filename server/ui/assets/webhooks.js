import { admin, copyButton, el, named, render, state } from './api.js';
import { Pager } from './pager.js';

// Webhooks of the app in view: endpoints (the secret shown once, when made), pause/resume,
// test events, and the delivery log with each attempt and "redeliver".

const base = () => `/apps/${encodeURIComponent(state.scope)}`;
let detailId = '';
const pagers = {};

function endpointRows(list) {
  return list.map((e) =>
    el(
      'tr',
      {},
      // The name the portal asks for, above the id (one column: the card must not overflow).
      el('td', {}, e.name ? [el('div', {}, e.name)] : [], el('code', {}, e.id)),
      el('td', {}, e.url),
      el('td', {}, `${e.scheme}/${e.payload ?? 'docs'}`),
      el('td', {}, e.events ? e.events.join(', ') : 'every event'),
      el('td', {}, e.enabled ? 'enabled' : 'paused'),
      el(
        'td',
        {},
        el('button', { type: 'button', 'data-test': e.id }, ...named('Send test', ` event to ${e.id}`)),
        el(
          'button',
          { type: 'button', 'data-toggle': e.id, 'data-enabled': String(e.enabled) },
          ...named(e.enabled ? 'Pause' : 'Resume', ` ${e.id}`),
        ),
        el('button', { type: 'button', 'data-remove-endpoint': e.id }, ...named('Remove', ` ${e.id}`)),
      ),
    ),
  );
}

const last = (d) => d.attempts.at(-1);
const answer = (a) => (a ? (a.response_status ?? a.error ?? '') : '');

function deliveryRows(list) {
  return list.map((d) =>
    el(
      'tr',
      {},
      el('td', {}, d.created_at),
      el('td', {}, d.event),
      el('td', {}, el('code', {}, d.endpoint_id)),
      el('td', {}, `${d.status}${d.fault ? ` (${d.fault})` : ''}`),
      el('td', {}, String(d.attempts.length)),
      el('td', {}, String(answer(last(d)))),
      el('td', {}, d.next_attempt_at ?? '—'),
      el(
        'td',
        {},
        el('button', { type: 'button', 'data-detail': d.id }, ...named('Details', ` of ${d.id}`)),
        el('button', { type: 'button', 'data-redeliver': d.id }, ...named('Redeliver', ` ${d.id}`)),
      ),
    ),
  );
}

export async function refreshWebhooks() {
  const section = document.getElementById('webhooks-app');
  const hasApp = Boolean(state.scope);
  document.getElementById('webhooks-body').hidden = !hasApp;
  section.textContent = hasApp
    ? `App in view: ${state.scope}`
    : 'Choose an app (App in view, at the top) to see its webhooks.';
  if (!hasApp) return;
  // Another app is another path: its listings start at their first page.
  const [endpoints, deliveries] = await Promise.all([
    pagers.endpoints.fetch(`${base()}/webhooks`),
    pagers.deliveries.fetch(`${base()}/webhook-deliveries`),
  ]);
  render(document.getElementById('endpoints-body'), endpoints, endpointRows, state.scope);
  render(document.getElementById('deliveries-body'), deliveries, deliveryRows, state.scope);
  const d = deliveries.find((x) => x.id === detailId);
  render(document.getElementById('delivery-detail'), d ?? null, (x) =>
    x
      ? el(
          'pre',
          { tabindex: '0', 'aria-label': `Delivery ${x.id}` },
          JSON.stringify({ request_body: JSON.parse(x.request_body), attempts: x.attempts }, null, 2),
        )
      : [],
  );
}

export function setupWebhooks(refreshAll) {
  pagers.endpoints = new Pager('endpoints', 'webhook endpoints', refreshAll);
  pagers.deliveries = new Pager('deliveries', 'webhook deliveries', refreshAll);
  const form = document.getElementById('endpoint-form');
  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    const f = new FormData(form);
    const body = { url: f.get('url'), scheme: f.get('scheme'), payload: f.get('payload') };
    const events = String(f.get('events') ?? '')
      .split(/[\s,]+/)
      .filter(Boolean);
    if (events.length > 0) body.events = events;
    if (f.get('name')) body.name = f.get('name');
    if (f.get('secret')) body.secret = f.get('secret');
    const made = await admin(`${base()}/webhooks`, { method: 'POST', json: body });
    const shown = el('code', {}, made.secret);
    document
      .getElementById('endpoint-created')
      .replaceChildren(
        `Endpoint ${made.id} created. Its secret, shown this once: `,
        shown,
        ' ',
        copyButton(made.secret, 'secret', shown),
      );
    form.reset();
    refreshAll();
  });
  document.getElementById('webhooks-body').addEventListener('click', async (ev) => {
    const b = ev.target.closest('button');
    if (!b) return;
    const ds = b.dataset;
    if (ds.test) await admin(`${base()}/webhooks/${ds.test}/test`, { method: 'POST', json: {} });
    else if (ds.toggle)
      await admin(`${base()}/webhooks/${ds.toggle}`, {
        method: 'PATCH',
        json: { enabled: ds.enabled !== 'true' },
      });
    else if (ds.removeEndpoint) await admin(`${base()}/webhooks/${ds.removeEndpoint}`, { method: 'DELETE' });
    else if (ds.redeliver)
      await admin(`${base()}/webhook-deliveries/${ds.redeliver}/redeliver`, { method: 'POST', json: {} });
    else if (ds.detail) detailId = ds.detail;
    else return;
    refreshAll();
  });
}
