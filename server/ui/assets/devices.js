import { act, admin, asUser, el, render } from './api.js';
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
  form.addEventListener('submit', (ev) => {
    ev.preventDefault();
    act(form, async () => {
      const history = form.elements.history.value
        .split('\n')
        .map((s) => s.trim())
        .filter(Boolean);
      const body = { is_bind: JSON.parse(form.elements.is_bind.value) };
      if (body.is_bind !== null || history.length) body.bind_history = history;
      const d = await admin(`/devices/${encodeURIComponent(sn())}`, { method: 'PUT', json: body });
      chosen = d.sn;
      refreshAll();
      return `Put ${d.sn}: is_bind ${d.is_bind}, ${d.bind_history.length} bind events.`;
    });
  });
  document.getElementById('devices-body').addEventListener('click', async (ev) => {
    const b = ev.target.closest('[data-choose]');
    if (b) choose(await admin(`/devices/${encodeURIComponent(b.dataset.choose)}`));
  });
  const actions = document.getElementById('device-actions');
  actions.addEventListener('click', (ev) => {
    const b = ev.target.closest('[data-device]');
    if (b) act(actions, () => deviceAction(b.dataset.device, sn(), actions, refreshAll));
  });
}

const OPS = {
  sign: '/open/partner/sdk/sn-sign',
  bind: '/open/partner/sdk/bind',
  unbind: '/open/partner/sdk/unbind',
};

/** One button of "Act on the serial above"; resolves to what happened, in words. */
async function deviceAction(action, serial, actions, refreshAll) {
  if (!serial) throw new Error('Enter a serial number first (Serial number, in "Put a device state").');
  const path = `/devices/${encodeURIComponent(serial)}`;
  let done;
  if (action === 'delete') {
    await admin(path, { method: 'DELETE' });
    done = `Deleted ${serial}.`;
  } else if (action === 'append') {
    const sub = actions.elements.sub.value.trim();
    if (!sub) throw new Error('Enter the account (sub) of the bind event first.');
    const d = await admin(path);
    const body = { is_bind: d.is_bind ?? false, bind_history: [sub, ...d.bind_history] };
    if (d.is_bind && d.owner) body.owner = d.owner;
    await admin(path, { method: 'PUT', json: body });
    done = `Appended a bind event by ${sub} to ${serial}.`;
  } else {
    const user = actions.elements.user_id.value.trim();
    const d = await asUser(user, 'POST', OPS[action], { type: typeOf(serial), sn: serial });
    const verb = { sign: 'Signed', bind: 'Bound', unbind: 'Unbound' }[action];
    done = `${verb} ${d.sn ?? serial} as user ${user}: is_bind is now ${d.is_bind}.`;
  }
  chosen = action === 'delete' ? '' : serial;
  refreshAll();
  return done;
}
