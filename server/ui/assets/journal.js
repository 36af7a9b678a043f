import { el, named, render, state } from './api.js';
import { Pager } from './pager.js';

// The newest 50 requests (a page of the listing; older pages follow its cursor).
const TAIL = 50;
let pager;

// The request journal: live tail with filters; a row opens the redacted entry.

let entries = [];

export async function refreshJournal(force = false) {
  if (!force && !document.getElementById('journal-live').checked) return;
  const f = new FormData(document.getElementById('journal-form'));
  const q = {};
  if (f.get('operation')) q.operation = f.get('operation');
  if (f.get('status')) q.status = f.get('status');
  const app = f.get('client_id') || state.scope;
  if (app) q.client_id = app;
  entries = await pager.fetch('/requests', q);
  render(document.getElementById('journal-body'), entries, (list) =>
    list.map((r) =>
      el(
        'tr',
        { 'data-operation': r.operation ?? '' },
        el('td', {}, r.time),
        el('td', {}, el('code', {}, `${r.method} ${r.path}`)),
        el('td', {}, r.operation ?? '—'),
        el('td', { class: r.status >= 400 ? 'bad' : undefined }, String(r.status)),
        el('td', {}, r.client_id ?? '—'),
        el('td', {}, el('button', { type: 'button', 'data-open': r.id }, ...named('Open', ` ${r.id}`))),
      ),
    ),
  );
}

export function setupJournal() {
  pager = new Pager('journal', 'requests', () => refreshJournal(true), TAIL);
  const form = document.getElementById('journal-form');
  form.addEventListener('change', () => refreshJournal(true));
  form.addEventListener('submit', (ev) => ev.preventDefault());
  document.getElementById('journal-body').addEventListener('click', (ev) => {
    const b = ev.target.closest('[data-open]');
    if (!b) return;
    const entry = entries.find((e) => e.id === b.dataset.open);
    document
      .getElementById('journal-detail')
      .replaceChildren(
        el('h3', {}, `Request ${entry.id}`),
        el(
          'pre',
          { tabindex: '0', 'aria-label': `Request ${entry.id} as recorded, secrets redacted` },
          JSON.stringify(entry, null, 2),
        ),
      );
  });
}
