import { act, admin, config, el, fillOptions, named, render, scope, state } from './api.js';
import { Pager } from './pager.js';

let pager;

// Fault rules: list, add from a form that knows the partner API's operations, remove.

const effect = (f) =>
  [
    f.status && `status ${f.status}`,
    f.action,
    f.delay_ms && `delay ${f.delay_ms} ms`,
    f.transcription_outcome && `outcome ${f.transcription_outcome}`,
    f.webhook_fault && `webhook ${f.webhook_fault}`,
    f.probability !== undefined && `p=${f.probability}`,
  ]
    .filter(Boolean)
    .join(', ') || 'none';

export async function refreshFaults() {
  const faults = await pager.fetch('/faults', scope());
  render(document.getElementById('faults-body'), faults, (list) =>
    list.map((f) =>
      el(
        'tr',
        {},
        el('td', {}, el('code', {}, f.id)),
        el('td', {}, f.operation),
        el('td', {}, effect(f)),
        el('td', {}, f.match ? JSON.stringify(f.match) : 'every request'),
        el('td', {}, `${f.hits} / ${f.remaining ?? '∞'}`),
        el('td', {}, el('button', { type: 'button', 'data-remove': f.id }, ...named('Remove', ` ${f.id}`))),
      ),
    ),
  );
}

const NUMBERS = ['status', 'delay_ms', 'times', 'probability'];

export function setupFaults(refreshAll) {
  pager = new Pager('faults', 'fault rules', refreshAll);
  fillOptions(document.getElementById('fault-op'), [...config.operations, config.webhookOperation]);
  fillOptions(document.getElementById('fault-webhook'), config.webhookFaults);
  fillOptions(document.getElementById('fault-action'), config.faultActions);
  fillOptions(document.getElementById('fault-outcome'), config.outcomes);
  fillOptions(document.getElementById('journal-op'), config.operations);
  const form = document.getElementById('fault-form');
  form.addEventListener('submit', (ev) => {
    ev.preventDefault();
    act(form, async () => {
      const rule = {};
      for (const [k, v] of new FormData(form)) {
        if (v === '') continue;
        if (NUMBERS.includes(k)) rule[k] = Number(v);
        else if (k === 'body') {
          try {
            rule.body = JSON.parse(v);
          } catch {
            throw new Error('Answer body (JSON) is not valid JSON.');
          }
        } else rule[k] = v;
      }
      if (state.scope) rule.match = { client_id: state.scope };
      const f = await admin('/faults', { method: 'POST', json: rule });
      form.reset();
      refreshAll();
      return `Added fault rule ${f.id} on ${f.operation}.`;
    });
  });
  const body = document.getElementById('faults-body');
  body.addEventListener('click', (ev) => {
    const b = ev.target.closest('[data-remove]');
    if (!b) return;
    act(body.closest('table'), async () => {
      await admin(`/faults/${encodeURIComponent(b.dataset.remove)}`, { method: 'DELETE' });
      refreshAll();
      return `Removed fault rule ${b.dataset.remove}.`;
    });
  });
}
