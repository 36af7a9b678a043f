import { adminPage, el, render } from './api.js';

// Every table of the dashboard shows one page of a control API listing and polls only that
// page (`limit` rows), never the whole listing: a bucket of thousands of files costs a poll
// no more than a bucket of ten. *Next page* follows the cursor of the listing's `Link`
// header; *Previous page* goes back through the cursors of the pages seen before.

export const PAGE_SIZE = 25;

export class Pager {
  /**
   * `name`: the element `<name>-pager` holds the buttons; `what`: what the rows are, for the
   * buttons' names ("devices"); `moved`: called after a move, to fetch the new page at once.
   */
  constructor(name, what, moved, size = PAGE_SIZE) {
    this.container = document.getElementById(`${name}-pager`);
    this.what = what;
    this.size = size;
    this.trail = [];
    this.cursor = undefined;
    this.next = undefined;
    this.filters = '';
    this.container.addEventListener('click', (ev) => {
      const b = ev.target.closest('[data-page]');
      if (!b) return;
      if (b.dataset.page === 'next' && this.next) {
        this.trail.push(this.cursor);
        this.cursor = this.next;
      } else if (b.dataset.page === 'previous' && this.trail.length) this.cursor = this.trail.pop();
      else return;
      moved();
    });
  }

  /**
   * The page in view of `path` with `filters`; another path (another app's webhooks) or other
   * filters than last time start over.
   */
  async fetch(path, filters = {}) {
    const key = JSON.stringify([path, filters]);
    if (key !== this.filters) {
      this.filters = key;
      this.trail = [];
      this.cursor = undefined;
    }
    const q = new URLSearchParams({ ...filters, limit: String(this.size) });
    if (this.cursor) q.set('cursor', this.cursor);
    const { body, next } = await adminPage(`${path}?${q}`);
    this.next = next;
    const at = { page: this.trail.length + 1, previous: this.trail.length > 0, next: Boolean(next) };
    render(this.container, at, () =>
      at.page === 1 && !at.next
        ? []
        : el(
            'nav',
            { class: 'pager', 'aria-label': `Pages of ${this.what}` },
            el(
              'button',
              { type: 'button', 'data-page': 'previous', disabled: !at.previous },
              'Previous page',
              el('span', { class: 'sr-only' }, ` of ${this.what}`),
            ),
            el('span', {}, `Page ${at.page}`),
            el(
              'button',
              { type: 'button', 'data-page': 'next', disabled: !at.next },
              'Next page',
              el('span', { class: 'sr-only' }, ` of ${this.what}`),
            ),
          ),
    );
    return body;
  }
}
