import { act, admin, appOf, el, render } from './api.js';
import { Pager } from './pager.js';

// Virtual recorders: the device side of each recorder (radio, pairing, battery, recordings),
// one button per arranged device-lock case, and record, pause, resume and stop "pressed on
// the device". Virtual phones: each SDK session's Bluetooth and permissions, switched as its
// user would. Every action's result or refusal shows beside its buttons.

const CASES = [
  ['classic_lock', 'Classic lock'],
  ['bound_elsewhere', 'Cloud true, another account'],
  ['not_in_history', 'Paired to a user not in history'],
  ['behind_duplicates', 'Right id behind 55 duplicates'],
  ['sixth_id', 'Right id as the 6th distinct id'],
  ['never_paired', 'Never paired, never signed'],
  ['out_of_range', 'Out of range'],
  ['battery_low', 'Battery low'],
  ['recording', 'Recording in progress'],
  ['paired_to_user', 'Paired and bound to the user below'],
];
const PRESSED = { start: 'started', pause: 'paused', resume: 'resumed' };

let pager;
let phonePager;
const serial = () => document.getElementById('recorder-sn').value.trim();
const short = (s) => (s ? `${s.slice(0, 20)}…` : '—');
const NO_SERIAL = new Error('Give the recorder’s serial number first (the field above).');

export async function refreshRecorders() {
  const list = await pager.fetch('/recorders');
  render(document.getElementById('recorders-body'), list, (rows) =>
    rows.map((r) =>
      el(
        'tr',
        { 'data-recorder': r.sn },
        el('td', { class: 'nowrap' }, el('code', {}, r.sn)),
        el('td', {}, r.in_range ? 'in range' : 'out of range'),
        el('td', {}, el('code', {}, r.uuid)),
        el('td', {}, r.paired_to ? el('code', { title: r.paired_to }, short(r.paired_to)) : 'unpaired'),
        el('td', {}, `${r.battery} %`),
        el('td', {}, r.firmware),
        el('td', {}, r.connected_phone ? 'connected' : '—'),
        el(
          'td',
          {},
          r.recording
            ? `${r.recording.paused_at ? 'paused' : 'recording'} since ${r.recording.paused_at ?? r.recording.start_time}`
            : '—',
        ),
        el('td', {}, String(r.recordings.length)),
      ),
    ),
  );
  const phones = await phonePager.fetch('/phones');
  render(document.getElementById('phones-body'), phones, (rows) =>
    rows.map((p) =>
      el(
        'tr',
        { 'data-phone': p.phone_id },
        el('td', {}, el('code', {}, p.phone_id)),
        el('td', {}, p.client_id),
        el('td', {}, p.platform),
        el('td', {}, p.connected_to ? el('code', {}, p.connected_to) : '—'),
        el(
          'td',
          { class: 'nowrap' },
          el(
            'button',
            { type: 'button', 'data-set': 'bluetooth', 'data-to': p.bluetooth === 'on' ? 'off' : 'on' },
            `Bluetooth ${p.bluetooth}`,
            el('span', { class: 'sr-only' }, `: turn ${p.bluetooth === 'on' ? 'off' : 'on'}`),
          ),
          el(
            'button',
            {
              type: 'button',
              'data-set': 'permissions',
              'data-to': p.permissions === 'granted' ? 'denied' : 'granted',
            },
            `Permissions ${p.permissions}`,
            el('span', { class: 'sr-only' }, `: ${p.permissions === 'granted' ? 'deny' : 'grant'}`),
          ),
        ),
      ),
    ),
  );
}

async function arrange(kase) {
  if (!serial()) throw NO_SERIAL;
  const json = { case: kase };
  if (kase === 'paired_to_user') {
    const sub = document.getElementById('recorder-user').value.trim();
    if (!sub) throw new Error('Give the user (client_user_…) the recorder is paired to.');
    json.user = { sub, client_id: appOf().client_id };
  }
  const r = await admin(`/recorders/${encodeURIComponent(serial())}/arrange`, { method: 'POST', json });
  return `${r.case}: ${r.expect.message}`;
}

async function press(action) {
  if (!serial()) throw NO_SERIAL;
  const path = `/recorders/${encodeURIComponent(serial())}`;
  if (action === 'generate') {
    const r = await admin(`${path}/recordings`, { method: 'POST', json: { duration_s: 60 } });
    return `Recording ${r.session_id} added (${r.duration_s} s of silence).`;
  }
  const r = await admin(`${path}/record`, { method: 'POST', json: { action } });
  return r.recording
    ? `Recording ${r.recording.session_id} ${PRESSED[action]}.`
    : `Stopped; ${r.recordings.length} recordings.`;
}

export function setupRecorders(refreshAll) {
  pager = new Pager('recorders', 'recorders', refreshAll);
  phonePager = new Pager('phones', 'phones', refreshAll);
  const buttons = document.getElementById('recorder-cases');
  for (const [kase, label] of CASES)
    buttons.append(el('button', { type: 'button', 'data-case': kase }, label));
  buttons.addEventListener('click', (ev) => {
    const b = ev.target.closest('button[data-case]');
    if (b)
      act(buttons, async () => {
        const said = await arrange(b.dataset.case);
        // The outcome shows as soon as the control API answered; the tables follow with the
        // refresh (as the other sections' actions do), not the outcome after the refresh.
        refreshAll();
        return said;
      });
  });
  const actions = document.getElementById('recorder-actions');
  actions.addEventListener('click', (ev) => {
    const b = ev.target.closest('button[data-record]');
    if (b)
      act(actions, async () => {
        const said = await press(b.dataset.record);
        refreshAll();
        return said;
      });
  });
  const phones = document.getElementById('phones-table');
  phones.addEventListener('click', (ev) => {
    const b = ev.target.closest('button[data-set]');
    const id = b?.closest('tr[data-phone]')?.dataset.phone;
    if (b && id)
      act(phones, async () => {
        const p = await admin(`/phones/${id}`, { method: 'PATCH', json: { [b.dataset.set]: b.dataset.to } });
        refreshAll();
        return `Phone ${p.phone_id}: Bluetooth ${p.bluetooth}, permissions ${p.permissions}.`;
      });
  });
}
