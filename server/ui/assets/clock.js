import { act, admin, el, render, scoped, state } from './api.js';

// The clock: instance-wide and the app in view; advance, freeze, thaw.

const describe = (c) => `${c.now} (offset ${c.offset_ms} ms${c.frozen ? ', frozen' : ''})`;

export async function refreshClock() {
  const instance = await admin('/clock');
  render(document.getElementById('clock-instance'), instance, (c) =>
    el('span', { 'data-offset': c.offset_ms }, describe(c)),
  );
  const appClock = state.scope ? await admin(`/clock${scoped()}`) : null;
  render(
    document.getElementById('clock-app'),
    appClock,
    (c) =>
      c ? el('span', { 'data-offset': c.offset_ms }, `${state.scope}: ${describe(c)}`) : 'no app selected',
    state.scope ?? '',
  );
}

export function setupClock(refreshAll) {
  const form = document.getElementById('clock-form');
  const change = (body) =>
    act(form, async () => {
      const target = document.getElementById('clock-target').value;
      await admin('/clock', { method: 'POST', json: target ? { ...body, client_id: target } : body });
      refreshAll();
    });
  form.addEventListener('click', (ev) => {
    const b = ev.target.closest('button[data-advance], button[data-freeze]');
    if (!b) return;
    if (b.dataset.advance) change({ advance_ms: Number(b.dataset.advance) });
    else change({ freeze: b.dataset.freeze === 'true' });
  });
  form.addEventListener('submit', (ev) => {
    ev.preventDefault();
    change({ advance_ms: Number(new FormData(form).get('custom')) });
  });
}
