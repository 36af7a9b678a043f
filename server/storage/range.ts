import type { ByteRange } from '../store/blobStore.js';

/**
 * A `Range` header as S3 reads it: one `bytes=a-b`, `bytes=a-` or `bytes=-n` range, the end
 * clamped to the object. Anything S3 ignores (other units, several ranges, garbage) gives
 * undefined (serve the whole object); a well-formed range outside the object gives
 * 'unsatisfiable' (416 InvalidRange).
 */
export function parseRange(
  header: string | undefined,
  size: number,
): ByteRange | 'unsatisfiable' | undefined {
  if (!header) return undefined;
  const m = /^\s*bytes=(\d*)-(\d*)\s*$/.exec(header);
  if (!m || (m[1] === '' && m[2] === '')) return undefined;
  if (m[1] === '') {
    const n = Number(m[2]);
    if (n === 0) return 'unsatisfiable';
    return { start: Math.max(0, size - n), end: size - 1 };
  }
  const start = Number(m[1]);
  const end = m[2] === '' ? size - 1 : Number(m[2]);
  if (m[2] !== '' && end < start) return undefined;
  if (start >= size) return 'unsatisfiable';
  return { start, end: Math.min(end, size - 1) };
}
