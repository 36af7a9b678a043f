import { SimError } from '../core/errors.js';
import type { PageQuery } from '../store/recordPage.js';

/**
 * The control API's listings page alike (admin.openapi.yaml `Limit`, `Cursor`, `NextPage`):
 * `limit` records at most, and while more follow a `Link: <…>; rel="next"` header naming the
 * same listing with an opaque `cursor`. A cursor is the listing's position (the last id shown,
 * say) in base64url JSON: opaque to clients, so the position's form may change, and checked on
 * the way back in, so a mangled one is a 422 naming `query.cursor`, never a 500.
 */
export function encodeCursor(position: Record<string, string | number | null>): string {
  return Buffer.from(JSON.stringify(position)).toString('base64url');
}

export function decodeCursor<T>(
  raw: string | undefined,
  valid: (v: Record<string, unknown>) => boolean,
): T | undefined {
  if (raw === undefined) return undefined;
  let v: unknown;
  try {
    v = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8'));
  } catch {
    v = undefined;
  }
  if (v === null || typeof v !== 'object' || Array.isArray(v) || !valid(v as Record<string, unknown>))
    throw SimError.invalidField(
      ['query', 'cursor'],
      'Not a cursor of this listing; pass the one its Link header gave',
      'value_error',
      raw,
    );
  return v as T;
}

/** A cursor of the id-ordered listings: the last id shown. */
const afterId = (raw: string | undefined): string | undefined =>
  decodeCursor<{ after: string }>(raw, (v) => typeof v.after === 'string')?.after;

/**
 * The page size asked for. The validator fills in the documented default (Limit in
 * admin.openapi.yaml), so it is stated there only.
 */
export function limitOf(limit: number | undefined): number {
  if (limit === undefined) throw new Error('limit has no default: is Limit referenced by this operation?');
  return limit;
}

/**
 * The store page an id-ordered listing call asks for: after its cursor, `limit` long, and
 * only one app's records when it names `client_id`, through the store's index on `appField`.
 * A listing of records that belong to no app (`appField` a reason instead) refuses the filter
 * with a 422 saying why, rather than ignoring it.
 */
export function pageQueryOf(
  query: { cursor?: string; limit?: number; client_id?: string },
  appField: { field: string } | { noApp: string } = { field: 'client_id' },
): PageQuery {
  const app = query.client_id;
  if (app !== undefined && 'noApp' in appField)
    throw SimError.invalidField(
      ['query', 'client_id'],
      `Not a filter of this listing: ${appField.noApp}`,
      'value_error',
      app,
    );
  return {
    after: afterId(query.cursor),
    limit: limitOf(query.limit),
    only: app === undefined || 'noApp' in appField ? undefined : { field: appField.field, value: app },
  };
}

/** Where a listing call came from: its URL (filters kept in the next link) and public base. */
export interface ListingRequest {
  req: { originalUrl: string };
  publicUrl: string;
}

/** The answer of an id-ordered listing page: its records, and the next link while more follow. */
export function idPageReply<T>(ctx: ListingRequest, page: { items: T[]; next?: string }) {
  return pageReply(ctx, page.items, page.next === undefined ? undefined : { after: page.next });
}

/** A cursor of the listings in creation order (fault rules, webhook endpoints): the last number shown. */
export const afterSeqOf = (raw: string | undefined): number | undefined =>
  decodeCursor<{ seq: number }>(raw, (v) => Number.isSafeInteger(v.seq))?.seq;

/** The answer of a creation-ordered listing page: its records, and the next link while more follow. */
export function seqPageReply<T>(ctx: ListingRequest, page: { items: T[]; next?: number }) {
  return pageReply(ctx, page.items, page.next === undefined ? undefined : { seq: page.next });
}

/** A listing page's answer: `items`, and a next link carrying `position` unless this is the last page. */
export function pageReply<T>(
  ctx: ListingRequest,
  items: T[],
  position: Record<string, string | number | null> | undefined,
) {
  const cursor = position === undefined ? undefined : encodeCursor(position);
  return { status: 200 as const, body: items, headers: nextLink(ctx, cursor) };
}

/**
 * The `Link` header of a page: the request's own URL (every filter kept) with the next
 * cursor, absolute like every URL the simulator hands out; none on the last page.
 */
export function nextLink(ctx: ListingRequest, cursor: string | undefined): Record<string, string> {
  if (cursor === undefined) return {};
  const url = new URL(ctx.req.originalUrl, 'http://placeholder');
  url.searchParams.set('cursor', cursor);
  return { Link: `<${ctx.publicUrl}${url.pathname}${url.search}>; rel="next"` };
}
