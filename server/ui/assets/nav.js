import { el } from './api.js';

// Finding one's way on a long page: the section bar stays at the top of the window and marks
// the section in view; a section whose listings are all empty shows one line instead of
// empty tables (its forms stay, since they are how it gets its first row).

const sections = () => [...document.querySelectorAll('main > section[id]')];
const linkTo = (id) => document.querySelector(`#sections a[href="#${id}"]`);

/** A listing is empty when it holds no data row (a tbody, or a container of tables). */
const isEmpty = (listing) =>
  listing.matches('tbody') ? listing.rows.length === 0 : !listing.querySelector('tbody tr');

function collapseIfEmpty(section) {
  const listings = [...section.querySelectorAll('[data-listing]')];
  const empty = listings.length > 0 && listings.every(isEmpty);
  section.classList.toggle('is-empty', empty);
  let note = section.querySelector(':scope > .empty-note');
  if (!note) {
    note = el('p', { class: 'empty-note' }, section.dataset.empty);
    section.querySelector('h2').after(note);
  }
  note.hidden = !empty;
  for (const part of section.querySelectorAll('[data-hide-empty]')) part.classList.toggle('collapsed', empty);
  linkTo(section.id)?.classList.toggle('empty', empty);
  const link = linkTo(section.id);
  if (link) link.title = empty ? section.dataset.empty : '';
}

/** The section jumped to, while it is in view: the last ones cannot scroll up to the bar. */
let jumped;

/** The section nearest the top of the window, under the bar, is "current". */
function markCurrent() {
  const bar = document.getElementById('sections').getBoundingClientRect().bottom;
  let current = sections()[0];
  for (const s of sections()) if (s.getBoundingClientRect().top <= bar + 8) current = s;
  // At the very bottom the last sections cannot reach the top: the last one is in view.
  if (window.innerHeight + window.scrollY >= document.documentElement.scrollHeight - 2)
    current = sections().at(-1);
  const target = jumped && document.getElementById(jumped)?.getBoundingClientRect();
  if (target && target.top < window.innerHeight && target.bottom > bar)
    current = document.getElementById(jumped);
  else jumped = undefined;
  for (const a of document.querySelectorAll('#sections a')) {
    const here = a === linkTo(current.id);
    if (here === (a.getAttribute('aria-current') === 'location')) continue;
    if (here) {
      a.setAttribute('aria-current', 'location');
      // Keep the current link visible in a bar that scrolls sideways (narrow windows).
      const list = a.closest('ul');
      const left = a.offsetLeft - list.offsetLeft;
      if (left < list.scrollLeft || left + a.offsetWidth > list.scrollLeft + list.clientWidth)
        list.scrollLeft = left - 16;
    } else a.removeAttribute('aria-current');
  }
}

/**
 * Says on the bar which of its ends hides links (`data-more`: "start", "end", both or
 * neither), for the CSS fades that show a narrow window's bar scrolls.
 */
function markHiddenLinks() {
  const bar = document.getElementById('sections');
  const list = bar.querySelector('ul');
  const more = [];
  if (list.scrollLeft > 1) more.push('start');
  if (list.scrollLeft + list.clientWidth < list.scrollWidth - 1) more.push('end');
  const value = more.join(' ');
  if (bar.dataset.more !== value) bar.dataset.more = value;
}

export function setupNav() {
  for (const section of sections()) {
    if (section.dataset.empty === undefined) continue;
    const watch = new MutationObserver(() => collapseIfEmpty(section));
    for (const listing of section.querySelectorAll('[data-listing]'))
      watch.observe(listing, { childList: true, subtree: true });
    collapseIfEmpty(section);
  }
  let queued = false;
  const onScroll = () => {
    if (queued) return;
    queued = true;
    requestAnimationFrame(() => {
      queued = false;
      markCurrent();
    });
  };
  window.addEventListener('scroll', onScroll, { passive: true });
  window.addEventListener('resize', onScroll);
  window.addEventListener('resize', markHiddenLinks);
  document.querySelector('#sections ul').addEventListener('scroll', markHiddenLinks, { passive: true });
  markHiddenLinks();
  // A jump lands the section under the bar; say where we are at once.
  document.getElementById('sections').addEventListener('click', (ev) => {
    const a = ev.target.closest('a[href^="#"]');
    if (a) jumped = a.getAttribute('href').slice(1);
  });
  window.addEventListener('hashchange', onScroll);
  if (location.hash) jumped = location.hash.slice(1);
  markCurrent();
}
