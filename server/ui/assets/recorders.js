import { admin, el, render } from './api.js';
import { Pager } from './pager.js';

// Virtual recorders: the device side of each recorder (radio, pairing, battery, recordings),
// one button per arranged device-lock case, and record start/stop "pressed on the device".
// Its own module and section, apart from the cloud device listing.

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
];

let pager;
const serial = () => document.getElementById('recorder-sn').value.trim();
const short = (s) => (s ? `${s.slice(0, 20)}…` : '—');

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
        el('td', {}, r.recording ? `recording since ${r.recording.start_time}` : '—'),
        el('td', {}, String(r.recordings.length)),
      ),
    ),
  );
}

export function setupRecorders(refreshAll) {
  pager = new Pager('recorders', 'recorders', refreshAll);
  const out = document.getElementById('recorder-result');
  const say = (text) => {
    out.textContent = text;
  };
  const buttons = document.getElementById('recorder-cases');
  for (const [kase, label] of CASES)
    buttons.append(el('button', { type: 'button', 'data-case': kase }, label));
  buttons.addEventListener('click', async (ev) => {
    const b = ev.target.closest('button[data-case]');
    if (!b || !serial()) return say('Give a serial number first.');
    const r = await admin(`/recorders/${encodeURIComponent(serial())}/arrange`, {
      method: 'POST',
      json: { case: b.dataset.case },
    });
    say(`${r.case}: ${r.expect.message}`);
    await refreshAll();
  });
  document.getElementById('recorder-actions').addEventListener('click', async (ev) => {
    const b = ev.target.closest('button[data-record]');
    if (!b || !serial()) return;
    const path = `/recorders/${encodeURIComponent(serial())}`;
    if (b.dataset.record === 'generate') {
      const r = await admin(`${path}/recordings`, { method: 'POST', json: { duration_s: 60 } });
      say(`Recording ${r.session_id} added (${r.duration_s} s of silence).`);
    } else {
      const r = await admin(`${path}/record`, { method: 'POST', json: { action: b.dataset.record } });
      say(
        r.recording
          ? `Recording ${r.recording.session_id} started.`
          : `Stopped; ${r.recordings.length} recordings.`,
      );
    }
    await refreshAll();
  });
}
