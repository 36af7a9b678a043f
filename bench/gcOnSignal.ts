/**
 * Preloaded into the simulator child by the soak (`node --expose-gc --import` this file):
 * SIGUSR2 runs a full garbage collection, so the soak compares resident memory after a GC
 * rather than wherever V8's lazy collector happened to leave it. Not part of the server.
 */
const gc = (globalThis as { gc?: () => void }).gc;
process.on('SIGUSR2', () => {
  gc?.();
});
