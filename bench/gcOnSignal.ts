import { renameSync, writeFileSync } from 'node:fs';
import { getHeapSpaceStatistics } from 'node:v8';

/**
 * Preloaded into the simulator child by the soaks (`node --expose-gc --import` this file):
 * SIGUSR2 collects garbage until the heap stops shrinking, so a soak compares resident memory
 * holding what the simulator keeps rather than wherever V8's collector happened to leave it.
 * One forced collection is not enough: it evacuates only some fragmented pages, and in the
 * write soak V8 then still held 58-146 MiB of old-space pages for 42 MiB of live objects, which
 * moved RSS by 90 MiB between readings. Repeating it as V8's own last-resort collection does
 * (3 to 7 rounds) leaves the pages the live objects need. With PARTNER_SIM_BENCH_HEAP_FILE
 * set, the figures (RSS before the collections, after them, V8's spaces) are written there
 * with a sequence number the reader waits for. Not part of the server.
 */
const gc = (globalThis as { gc?: () => void }).gc;
const heapFile = process.env.PARTNER_SIM_BENCH_HEAP_FILE;
const MAX_ROUNDS = 7;
/** A round may give back nothing and the next much (it evacuates what the last one marked). */
const MIN_ROUNDS = 3;
let seq = 0;

const committed = () => getHeapSpaceStatistics().reduce((n, s) => n + s.space_size, 0);

process.on('SIGUSR2', () => {
  const rssBeforeGc = process.memoryUsage.rss();
  let rounds = 0;
  if (gc) {
    let before = Number.POSITIVE_INFINITY;
    // Past MIN_ROUNDS, stop once a round gives back less than a page (256 KiB).
    while (rounds < MIN_ROUNDS || (rounds < MAX_ROUNDS && before - committed() > 256 * 1024)) {
      before = committed();
      gc();
      rounds++;
    }
  }
  if (!heapFile) return;
  const spaces = Object.fromEntries(getHeapSpaceStatistics().map((s) => [s.space_name, s.space_size]));
  // Written aside and renamed, so a reader never sees half a file.
  writeFileSync(
    `${heapFile}.tmp`,
    JSON.stringify({ seq: ++seq, rssBeforeGc, rounds, ...process.memoryUsage(), spaces }),
  );
  renameSync(`${heapFile}.tmp`, heapFile);
});
