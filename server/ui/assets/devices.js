import { admin, asUser, el, render, showError } from './api.js';
import { Pager } from './pager.js';

// Devices: binding state, de-duplicated history, the recovery plan of the reference helper
// (computed by the control API from server/client/recovery.ts), and controls.

let chosen = '';
let pager;
const typeOf = (sn) => (sn.startsWith('882') ? 'notepins' : 'notepro');

/** Newest-first distinct accounts with how many bind events each has. */
function dedupe(history) {
  const counts = new Map();
  for (const sub of history) counts.set(sub, (counts.get(sub) ?? 0) + 1);
  return [...counts];
}

const historyCell = (history) =>
  history.length === 0
    ? 'empty'
    : el(
        'ul',
        { class: 'plain' },
        ...dedupe(history).map(([sub, n]) => el('li', {}, el('code', {}, sub), ` ×${n}`)),
      );

export async function refreshDevices() {
  const devices = await pager.fetch('/devices');
  render(document.getElementById('devices-body'), devices, (list) =>
    list.map((d) =>
      el(
        'tr',
        { 'data-sn': d.sn },
        el('td', { class: 'nowrap' }, el('code', {}, d.sn)),
        el('td', {}, d.type),
        el('td', { class: `bind-${d.is_bind}` }, String(d.is_bind)),
        el('td', {}, d.owner ? `${d.owner.sub} (${d.owner.client_id})` : '—'),
        el('td', {}, historyCell(d.bind_history)),
        el(
          'td',
          {},
          el(
            'button',
            { type: 'button', 'data-choose': d.sn },
            'Choose',
            el('span', { class: 'sr-only' }, ` ${d.sn}`),
          ),
        ),
      ),
    ),
  );
  if (chosen) await refreshRecovery();
}

async function refreshRecovery() {
  let plan;
  try {
    plan = await admin(`/devices/${encodeURIComponent(chosen)}/recovery`);
  } catch (e) {
    plan = { action: 'gone', message: e.status === 404 ? 'device not known' : e.message };
  }
  render(document.getElementById('recovery'), { chosen, plan }, () => [
    el(
      'p',
      {},
      'For ',
      el('code', {}, chosen),
      ': ',
      plan.action === 'try' ? 'try these accounts, newest first' : plan.message,
    ),
    plan.action === 'try' ? el('ol', {}, ...plan.candidates.map((c) => el('li', {}, el('code', {}, c)))) : '',
    plan.omitted ? el('p', {}, `${plan.omitted} more omitted`) : '',
  ]);
}

function choose(device) {
  chosen = device.sn;
  const form = document.getElementById('device-form');
  form.elements.sn.value = device.sn;
  form.elements.is_bind.value = String(device.is_bind);
  form.elements.history.value = device.bind_history.join('\n');
  refreshRecovery();
}

export function setupDevices(refreshAll) {
  pager = new Pager('devices', 'devices', refreshAll);
  const form = document.getElementById('device-form');
  const sn = () => form.elements.sn.value.trim();
  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    const history = form.elements.history.value
      .split('\n')
      .map((s) => s.trim())
      .filter(Boolean);
    const body = { is_bind: JSON.parse(form.elements.is_bind.value) };
    if (body.is_bind !== null || history.length) body.bind_history = history;
    await admin(`/devices/${encodeURIComponent(sn())}`, { method: 'PUT', json: body });
    chosen = sn();
    refreshAll();
  });
  document.getElementById('devices-body').addEventListener('click', async (ev) => {
    const b = ev.target.closest('[data-choose]');
    if (b) choose(await admin(`/devices/${encodeURIComponent(b.dataset.choose)}`));
  });
  const actions = document.getElementById('device-actions');
  actions.addEventListener('click', async (ev) => {
    const b = ev.target.closest('[data-device]');
    if (!b) return;
    const serial = sn();
    if (!serial) return showError('Enter a serial number first.');
    const ref = { type: typeOf(serial), sn: serial };
    const path = `/devices/${encodeURIComponent(serial)}`;
    const act = b.dataset.device;
    if (act === 'delete') await admin(path, { method: 'DELETE' });
    else if (act === 'append') {
      const d = await admin(path);
      const sub = actions.elements.sub.value.trim();
      if (!sub) return showError('Enter the account (sub) of the bind event.');
      const body = { is_bind: d.is_bind ?? false, bind_history: [sub, ...d.bind_history] };
      if (d.is_bind && d.owner) body.owner = d.owner;
      await admin(path, { method: 'PUT', json: body });
    } else {
      const op = {
        sign: '/open/partner/sdk/sn-sign',
        bind: '/open/partner/sdk/bind',
        unbind: '/open/partner/sdk/unbind',
      };
      await asUser(actions.elements.user_id.value.trim(), 'POST', op[act], ref);
    }
    chosen = act === 'delete' ? '' : serial;
    refreshAll();
  });
}
