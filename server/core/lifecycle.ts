import { readFile } from 'node:fs/promises';
import { join } from 'node:path';

/** A service that holds state: how it empties itself and how it loads its fixtures. */
export interface Lifecycle {
  /** Everything gone (the store is cleared separately): drop caches, blobs, timers. */
  resetAll?(): Promise<void> | void;
  /** One partner app's state gone, the app itself kept. */
  resetApp?(clientId: string): Promise<void> | void;
  /** Load this service's fixture files from `dir` into an empty store. */
  seed?(dir: string): Promise<void>;
}

/** A fixture file of `dir`, parsed, or undefined when the file does not exist. */
export async function readFixture<T>(dir: string, name: string): Promise<T | undefined> {
  try {
    return JSON.parse(await readFile(join(dir, name), 'utf8')) as T;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new Error(`fixtures: cannot read ${name}: ${(e as Error).message}`);
  }
}
