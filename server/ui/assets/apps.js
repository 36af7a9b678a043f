import { act, admin, copyButton, el, named, render, state } from './api.js';
import { Pager } from './pager.js';

// Apps: list, create (credentials shown once), delete, and choose the app in view.

let pager;

// The app's quirk switches in words (server/admin.openapi.yaml PartnerApp): only those set
// away from the defaults, which the paragraph under the table names once.
const RESULTS = {
  both: 'Results: contract and live fields',
  spec: 'Results: contract fields only',
  live: 'Results: live fields only',
};
const quirks = (a) => {
  const set = [
    a.result_shape && RESULTS[a.result_shape],
    a.error_shape === 'live' && 'Errors as {code, message}',
    a.etag_quotes === 'strip' && 'Part ETag without quotes',
    a.strict_params && 'Unknown params refused (422)',
  ].filter(Boolean);
  return set.length > 0 ? set : ['defaults'];
};

export async function refreshApps() {
  state.apps = await pager.fetch('/apps');
  for (const a of state.apps) state.known.set(a.client_id, a);
  render(
    document.getElementById('apps-body'),
    state.apps,
    (apps) =>
      apps.map((a) =>
        el(
          'tr',
          { class: a.client_id === state.scope ? 'chosen' : undefined },
          el('td', {}, el('code', {}, a.client_id)),
          el('td', {}, a.region),
          el('td', {}, el('ul', { class: 'plain quirks' }, ...quirks(a).map((q) => el('li', {}, q)))),
          el(
            'td',
            {},
            el('button', { type: 'button', 'data-use': a.client_id }, ...named('View', ` ${a.client_id}`)),
            el(
              'button',
              { type: 'button', 'data-delete-app': a.client_id },
              ...named('Delete', ` ${a.client_id}`),
            ),
          ),
        ),
      ),
    state.scope ?? '',
  );
  // The choices are the apps of the page in view, and the app in view wherever it is.
  const ids = state.apps.map((a) => a.client_id);
  if (state.scope && !ids.includes(state.scope)) ids.push(state.scope);
  for (const id of ['scope', 'clock-target', 'journal-app']) syncOptions(document.getElementById(id), ids);
}

/** Keep a select's app options in step with the app list without losing its value. */
function syncOptions(select, ids) {
  const fixed = select.options[0];
  const current = [...select.options].slice(1).map((o) => o.value);
  if (JSON.stringify(current) === JSON.stringify(ids)) return;
  const value = select.value;
  select.replaceChildren(fixed, ...ids.map((id) => el('option', { value: id }, id)));
  select.value = ids.includes(value) ? value : '';
}

export function setupApps(refreshAll) {
  pager = new Pager('apps', 'apps', refreshAll);
  const scope = document.getElementById('scope');
  const choose = (id) => {
    state.scope = id;
    scope.value = id;
    document.getElementById('clock-target').value = id;
    refreshAll();
  };
  scope.addEventListener('change', () => choose(scope.value));
  document.getElementById('apps-body').addEventListener('click', async (ev) => {
    const use = ev.target.closest('[data-use]');
    if (use) return choose(use.dataset.use);
    const del = ev.target.closest('[data-delete-app]');
    if (del && confirm(`Delete ${del.dataset.deleteApp} and everything it owns?`)) {
      const id = del.dataset.deleteApp;
      await act(document.getElementById('apps-body').closest('table'), async () => {
        await admin(`/apps/${encodeURIComponent(id)}`, { method: 'DELETE' });
        state.known.delete(id);
        if (state.scope === id) choose('');
        else refreshAll();
        return `Deleted app ${id}.`;
      });
    }
  });
  document.getElementById('app-form').addEventListener('submit', (ev) => {
    ev.preventDefault();
    act(ev.target, () => createApp(ev, refreshAll));
  });
}

async function createApp(ev, refreshAll) {
  const form = new FormData(ev.target);
  const body = { region: form.get('region') };
  if (form.get('client_id')) body.client_id = form.get('client_id');
  const app = await admin('/apps', { method: 'POST', json: body });
  ev.target.reset();
  // The credentials are shown this once; the tables never show secrets.
  const field = (name) => {
    const shown = el('code', {}, app[name]);
    return [el('dt', {}, name), el('dd', {}, shown, ' ', copyButton(app[name], name, shown))];
  };
  document
    .getElementById('app-created')
    .replaceChildren(
      el(
        'p',
        {},
        `Created ${app.client_id} (${app.region}). Copy its credentials now; they are not shown again.`,
      ),
      el('dl', { class: 'creds' }, ...field('client_id'), ...field('secret_key'), ...field('api_key')),
    );
  refreshAll();
}
