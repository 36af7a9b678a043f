const UNIT: Record<string, number> = { b: 1, kib: 1024, mib: 1024 ** 2, gib: 1024 ** 3 };

/**
 * A size option (`64MiB`, `512KiB`, `1GiB`, `100B`, or a bare number of bytes) in bytes.
 * Binary units only: `MB` is refused rather than guessed (1000² or 1024²?). Throws with the
 * accepted forms on anything else, so a typo is a start-up error.
 */
export function parseByteSize(raw: string): number {
  const m = /^\s*(\d+(?:\.\d+)?)\s*(b|kib|mib|gib)?\s*$/i.exec(raw);
  const bytes = m ? Math.round(Number(m[1]) * UNIT[(m[2] ?? 'b').toLowerCase()]!) : Number.NaN;
  if (!Number.isSafeInteger(bytes))
    throw new Error("expected a size such as '64MiB', '512KiB', '1GiB' or bytes");
  return bytes;
}
