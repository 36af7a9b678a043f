import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fromRoot } from '../core/root.js';

const md5 = (b: Buffer): string => createHash('md5').update(b).digest('hex');

/**
 * Bytes for the recorded bodies that were kept only as length and MD5 (audio). A file the
 * replay was given (`--audio`) or one of the package's fixtures is used when a slice of it at
 * the part's place has the recorded MD5, so the target hears the same audio; otherwise a
 * stand-in of the same length (its MD5 differs: complete-upload's `file_md5` is recomputed).
 */
export class AudioBytes {
  private files: Buffer[] | undefined;

  constructor(private readonly paths: string[]) {}

  private async load(): Promise<Buffer[]> {
    if (this.files) return this.files;
    const dir = fromRoot('fixtures', 'audio');
    const fixtures = await readdir(dir).then(
      (names) => names.filter((n) => !/\.(json|md)$/.test(n)).map((n) => join(dir, n)),
      () => [],
    );
    const out: Buffer[] = [];
    for (const p of [...this.paths, ...fixtures]) {
      try {
        out.push(await readFile(p));
      } catch {
        // a fixture that went away: the stand-in will do
      }
    }
    this.files = out;
    return out;
  }

  /** `size` bytes with MD5 `want` if a known file holds them at part `part` of `chunk` bytes. */
  async bytes(
    size: number,
    want: string,
    part: number,
    chunk: number,
  ): Promise<{ body: Buffer; real: boolean }> {
    for (const file of await this.load()) {
      for (const at of new Set([(part - 1) * chunk, 0])) {
        if (at + size > file.length) continue;
        const slice = file.subarray(at, at + size);
        if (md5(slice) === want) return { body: slice, real: true };
      }
    }
    const body = Buffer.alloc(size);
    for (let i = 0; i < size; i++) body[i] = (i * 31 + part) & 0xff;
    return { body, real: false };
  }
}

/** The MD5 of an upload's parts joined in part order (what complete-upload's `file_md5` names). */
export function joinedMd5(parts: Map<number, Buffer>): string {
  const hash = createHash('md5');
  for (const n of [...parts.keys()].sort((a, b) => a - b)) hash.update(parts.get(n)!);
  return hash.digest('hex');
}
