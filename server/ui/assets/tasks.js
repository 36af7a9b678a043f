import { act, admin, asApp, config, el, fillOptions, render, scope } from './api.js';
import { Pager } from './pager.js';

const pagers = {};
/** The task whose result is shown: followed at every poll, so a forced status shows. */
let viewing;

// Uploads and files, transcription tasks (timeline, forcing, result), attached transcripts.

// In a box of its own that scrolls sideways, as the page's tables are: on a phone a wide table
// scrolls there, not its whole section with the forms.
const table = (heads, rows) =>
  rows.length === 0
    ? el('p', {}, 'None.')
    : el(
        'div',
        { class: 'scroll-x' },
        el(
          'table',
          {},
          el('thead', {}, el('tr', {}, ...heads.map((h) => el('th', { scope: 'col' }, h)))),
          el('tbody', {}, ...rows.map((cells) => el('tr', {}, ...cells.map((c) => el('td', {}, c))))),
        ),
      );

export async function refreshUploads() {
  const inv = await pagers.uploads.fetch('/uploads', scope());
  render(document.getElementById('uploads-list'), inv.uploads, (uploads) =>
    table(
      ['Upload', 'App', 'Type / size', 'Parts received (size, ETag)', 'Expires'],
      uploads.map((u) => [
        el('code', {}, u.upload_id),
        u.client_id,
        `${u.filetype}, ${u.filesize} B`,
        el(
          'ul',
          { class: 'plain' },
          el('li', {}, `${u.parts.length} of ${u.part_count}`),
          ...u.parts.map((p) => el('li', {}, `#${p.part_number}: ${p.size} B, `, el('code', {}, p.etag))),
        ),
        u.expires_at,
      ]),
    ),
  );
  // Download URLs are re-signed on every read: compare without them so the links stay put, but
  // give the links the newest URLs (an old one expires once an app's clock moves on).
  const files = inv.files;
  for (const f of files) {
    const link = document.getElementById(`download-${f.file_id}`);
    if (link) link.href = f.download_url;
  }
  render(
    document.getElementById('files-list'),
    files.map((f) => f.file_id + f.etag),
    () =>
      table(
        ['File', 'App', 'Size', 'MD5 / ETag', 'Download'],
        files.map((f) => [
          el('code', {}, f.file_id),
          f.client_id,
          `${f.size} B (${f.filetype})`,
          el('span', {}, el('code', {}, f.md5), ' ', el('code', {}, f.etag)),
          el('a', { href: f.download_url, id: `download-${f.file_id}` }, `Download ${f.file_id}`),
        ]),
      ),
  );
}

const PATH = ['PENDING', 'RECEIVED', 'STARTED', 'PROGRESS', 'SUCCESS'];

/** The normal path with the task's place on it; a FAILURE/REVOKED end replaces SUCCESS. */
function timeline(t) {
  const steps = PATH.includes(t.status) ? PATH : [...PATH.slice(0, -1), t.status];
  const at = steps.indexOf(t.status);
  return el(
    'ol',
    { class: 'timeline', 'aria-label': `Status ${t.status}` },
    ...steps.map((s, i) =>
      el(
        'li',
        {
          class: i < at ? 'done' : i === at ? `now status-${s}` : 'todo',
          'aria-current': i === at ? 'step' : undefined,
        },
        s,
      ),
    ),
    t.forced_status ? el('li', { class: 'forced' }, `forced${t.message ? `: ${t.message}` : ''}`) : '',
  );
}

export async function refreshTasks() {
  const tasks = await pagers.tasks.fetch('/transcriptions', scope());
  render(document.getElementById('tasks-body'), tasks, (list) =>
    list.map((t) =>
      el(
        'tr',
        { 'data-task': t.transcription_id, 'data-status': t.status },
        el('td', {}, el('code', {}, t.transcription_id)),
        el('td', {}, t.client_id),
        el('td', {}, timeline(t)),
        el('td', {}, t.created_at),
        el(
          'td',
          {},
          el(
            'button',
            { type: 'button', 'data-force': t.transcription_id },
            'Force',
            el('span', { class: 'sr-only' }, ` ${t.transcription_id}`),
          ),
          el(
            'button',
            { type: 'button', 'data-result': t.transcription_id, 'data-app': t.client_id },
            'View result',
          ),
        ),
      ),
    ),
  );
  await refreshResult();
}

/** The result of the task in view, as its app polls it (a task gone shows why). */
async function refreshResult() {
  if (!viewing) return;
  const { id, app } = viewing;
  let task;
  try {
    task = await asApp(app, `/open/partner/ai/transcriptions/${encodeURIComponent(id)}`);
  } catch (e) {
    task = { status: e.status === 404 ? 'gone (404)' : `unreadable (${e.message})` };
  }
  render(document.getElementById('result'), task, () => {
    // Seed shape: data.segments; live shape: data.results (speaker_id). Either is shown.
    const result = task.data ?? {};
    const segs = result.segments ?? result.results ?? [];
    return [
      el('h3', {}, `Result of ${id}: ${task.status}`),
      task.message ? el('p', {}, `Message: ${task.message}`) : '',
      segs.length
        ? segments('Segments', segs, true)
        : el('pre', { tabindex: '0' }, JSON.stringify(task, null, 2)),
    ];
  });
}

export async function refreshTranscripts() {
  const list = await pagers.transcripts.fetch('/transcripts');
  render(document.getElementById('transcripts-list'), list, (items) =>
    items.length === 0
      ? el('p', {}, 'None.')
      : items.map((t) => segments(`${t.file ?? t.md5} (${t.language})`, t.segments)),
  );
}

function segments(title, segs = [], open = false) {
  return el(
    'details',
    { open },
    el('summary', {}, title),
    table(
      ['Start', 'End', 'Speaker', 'Text'],
      segs.map((s) => [`${s.start}s`, `${s.end}s`, s.speaker ?? s.speaker_id ?? '', s.text]),
    ),
  );
}

export function setupTasks(refreshAll) {
  pagers.uploads = new Pager('uploads', 'upload sessions and files', refreshAll);
  pagers.tasks = new Pager('tasks', 'transcription tasks', refreshAll);
  pagers.transcripts = new Pager('transcripts', 'transcripts', refreshAll);
  fillOptions(document.getElementById('force-status'), config.statuses);
  const form = document.getElementById('force-form');
  form.addEventListener('submit', (ev) => {
    ev.preventDefault();
    act(form, async () => {
      const f = new FormData(form);
      const body = { status: f.get('status') };
      if (f.get('message')) body.message = f.get('message');
      await admin(`/transcriptions/${encodeURIComponent(f.get('id'))}`, { method: 'PUT', json: body });
      refreshAll();
      return `Task ${f.get('id')} forced to ${body.status}.`;
    });
  });
  document.getElementById('tasks-body').addEventListener('click', async (ev) => {
    const force = ev.target.closest('[data-force]');
    if (force) {
      form.elements.id.value = force.dataset.force;
      form.elements.status.focus();
      return;
    }
    const view = ev.target.closest('[data-result]');
    if (!view) return;
    viewing = { id: view.dataset.result, app: view.dataset.app };
    act(document.getElementById('tasks-body').closest('table'), refreshResult);
  });
}
