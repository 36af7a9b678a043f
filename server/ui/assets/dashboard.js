import { adminToken, notify, showError, state } from './api.js';
import { refreshApps, setupApps } from './apps.js';
import { refreshClock, setupClock } from './clock.js';
import { refreshDevices, setupDevices } from './devices.js';
import { refreshFaults, setupFaults } from './faults.js';
import { refreshJournal, setupJournal } from './journal.js';
import { setupNav } from './nav.js';
import { refreshRecorders, setupRecorders } from './recorders.js';
import { refreshTasks, refreshTranscripts, refreshUploads, setupTasks } from './tasks.js';
import { refreshWebhooks, setupWebhooks } from './webhooks.js';

// Entry point: wires the views and polls the control API every 1.5 s while the tab is visible.

const live = document.getElementById('live');
// `?poll_ms=` asks for another interval, kept between 100 ms, so a typo cannot flood the
// control API, and a minute.
const asked = Number.parseInt(new URLSearchParams(location.search).get('poll_ms') ?? '', 10);
const POLL_MS = Number.isNaN(asked) ? 1500 : Math.min(60_000, Math.max(100, asked));
live.dataset.pollMs = String(POLL_MS);
let running = false;

let again = false;
// Refreshes begun and ended, counted on the status line: whoever waits for the page to have
// refreshed (a browser test) asks for one and waits for it, instead of for the next poll.
let begun = 0;
let ended = 0;

async function refreshAll() {
  if (state.needToken) return;
  // A change made while a poll is in flight must still show: run once more after it.
  if (running) {
    again = true;
    return;
  }
  running = true;
  live.dataset.refreshBegun = String(++begun);
  try {
    await refreshApps();
    await Promise.all([
      refreshClock(),
      refreshDevices(),
      refreshRecorders(),
      refreshUploads(),
      refreshTasks(),
      refreshTranscripts(),
      refreshFaults(),
      refreshJournal(),
      refreshWebhooks(),
    ]);
    live.textContent = `Live: updated ${new Date().toLocaleTimeString()}${state.scope ? `, showing ${state.scope}` : ', all apps'}`;
    showError('');
  } catch (e) {
    if (state.needToken) askToken();
    else showError(e);
  } finally {
    running = false;
    live.dataset.refreshEnded = String(++ended);
    if (again) {
      again = false;
      refreshAll();
    }
  }
}

let tokenTried = false;

function askToken() {
  document.getElementById('token-panel').hidden = false;
  live.textContent = 'Waiting for the admin token.';
  // A token was given and the control API still answers 401: say so, beside the form.
  if (tokenTried)
    notify(
      document.getElementById('token-form'),
      'error',
      'The control API refused this admin token (401): enter the value the simulator was started with (--admin-token).',
    );
  document.getElementById('admin-token').focus();
}

document.getElementById('token-form').addEventListener('submit', (ev) => {
  ev.preventDefault();
  tokenTried = true;
  adminToken.set(new FormData(ev.target).get('token'));
  state.needToken = false;
  document.getElementById('token-panel').hidden = true;
  refreshAll();
});

window.addEventListener('unhandledrejection', (ev) => showError(ev.reason));
setupNav();
setupApps(refreshAll);
setupClock(refreshAll);
setupDevices(refreshAll);
setupRecorders(refreshAll);
setupTasks(refreshAll);
setupFaults(refreshAll);
setupJournal();
setupWebhooks(refreshAll);
setInterval(() => {
  if (!document.hidden) refreshAll();
}, POLL_MS);
// Back in view: refresh at once (also how a browser test asks for a refresh now).
document.addEventListener('visibilitychange', () => {
  if (!document.hidden) refreshAll();
});
refreshAll();
