import { renameSync, writeFileSync } from 'node:fs';

/**
 * Preloaded into the simulator child by the soaks (`node --expose-gc --import` this file):
 * SIGUSR2 runs a full garbage collection, so a soak compares resident memory after a GC
 * rather than wherever V8's lazy collector happened to leave it. With
 * PARTNER_SIM_BENCH_HEAP_FILE set, the heap figures after that collection are written there
 * (the write soak prints them beside RSS). Not part of the server.
 */
const gc = (globalThis as { gc?: () => void }).gc;
const heapFile = process.env.PARTNER_SIM_BENCH_HEAP_FILE;
process.on('SIGUSR2', () => {
  gc?.();
  // Written aside and renamed, so a reader never sees half a file.
  if (heapFile) {
    writeFileSync(`${heapFile}.tmp`, JSON.stringify(process.memoryUsage()));
    renameSync(`${heapFile}.tmp`, heapFile);
  }
});
