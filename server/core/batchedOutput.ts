/** Where the lines go (logger.ts's LogOutput; declared here too so neither imports the other). */
interface LogOutput {
  isTTY?: boolean;
  write(line: string): unknown;
}

/** Past this many characters waiting, a batch is written at once rather than at the turn's end. */
const MAX_PENDING = 64 * 1024;

const pending = new Set<BatchedOutput>();
let exitHooked = false;

/**
 * Log lines gathered for one turn of the event loop and written to `out` in one call. Under
 * load a simulator logs a line a request; written one by one into a pipe, each line was a
 * system call and a wake-up of the reader (a CI runner, `tee`), which cost more than serving
 * a binding GET (bench/requestOverhead.ts). Lines wait at most until the current turn ends
 * (setImmediate, unref'd so a quiet process can exit) or until 64 KiB wait; whatever waits
 * when the process exits is written then, synchronously, as Node writes stdout to files and
 * pipes, so no line is lost to an orderly or a crashing exit.
 */
export class BatchedOutput implements LogOutput {
  private text = '';
  private scheduled = false;

  constructor(private readonly out: LogOutput) {
    if (!exitHooked) {
      exitHooked = true;
      process.on('exit', () => {
        for (const b of pending) b.flush();
      });
    }
  }

  get isTTY(): boolean | undefined {
    return this.out.isTTY;
  }

  write(line: string): boolean {
    this.text += line;
    if (this.text.length >= MAX_PENDING) this.flush();
    else if (!this.scheduled) {
      this.scheduled = true;
      pending.add(this);
      setImmediate(() => this.flush()).unref();
    }
    return true;
  }

  flush(): void {
    this.scheduled = false;
    pending.delete(this);
    if (this.text === '') return;
    const text = this.text;
    this.text = '';
    try {
      this.out.write(text);
    } catch {
      // A closed stdout (EPIPE): the lines have nowhere to go, and logging must not throw.
    }
  }
}
