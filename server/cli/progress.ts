/**
 * What the client commands show while they work: a progress bar for the upload (bytes, rate,
 * ETA) and a spinner for the transcription status. On a terminal both redraw one line; on
 * anything else (a pipe, a CI log) they print plain lines, a few per upload and one per
 * status, so logs stay readable.
 */
export interface Out {
  write(chunk: string): unknown;
  isTTY?: boolean;
  columns?: number;
}

const KiB = 1024;
export function formatBytes(n: number): string {
  if (n < KiB) return `${n} B`;
  if (n < KiB ** 2) return `${(n / KiB).toFixed(1)} KiB`;
  if (n < KiB ** 3) return `${(n / KiB ** 2).toFixed(1)} MiB`;
  return `${(n / KiB ** 3).toFixed(2)} GiB`;
}

/** Seconds as m:ss. */
export function formatDuration(s: number): string {
  if (!Number.isFinite(s)) return '--:--';
  const whole = Math.max(0, Math.round(s));
  return `${Math.floor(whole / 60)}:${String(whole % 60).padStart(2, '0')}`;
}

const BAR = 24;
/** Plain-line mode prints at most one line per this fraction of the file (and the last). */
const PLAIN_STEP = 0.25;

export class UploadProgress {
  private readonly start: number;
  private lastPlain = -1;
  constructor(
    private readonly out: Out,
    private readonly total: number,
    private readonly now: () => number = Date.now,
  ) {
    this.start = now();
  }

  /** The numbers of a line: "12.0 KiB / 23.2 KiB  40.1 KiB/s  ETA 0:01". */
  private figures(sent: number): string {
    const secs = Math.max((this.now() - this.start) / 1000, 1e-3);
    const rate = sent / secs;
    const eta = rate > 0 ? (this.total - sent) / rate : Number.POSITIVE_INFINITY;
    return `${formatBytes(sent)} / ${formatBytes(this.total)}  ${formatBytes(Math.round(rate))}/s  ETA ${formatDuration(eta)}`;
  }

  update(sent: number): void {
    const frac = this.total > 0 ? sent / this.total : 1;
    if (this.out.isTTY) {
      const full = Math.round(frac * BAR);
      const bar = `${'█'.repeat(full)}${'░'.repeat(BAR - full)}`;
      this.out.write(
        `\r\x1b[2Kupload [${bar}] ${String(Math.floor(frac * 100)).padStart(3)}%  ${this.figures(sent)}`,
      );
      return;
    }
    const step = Math.floor(frac / PLAIN_STEP);
    if (step === this.lastPlain && sent < this.total) return;
    this.lastPlain = step;
    this.out.write(`upload: ${Math.floor(frac * 100)}%  ${this.figures(sent)}\n`);
  }

  /** End the bar's line (a terminal keeps the last drawing). */
  done(): void {
    if (this.out.isTTY) this.out.write('\n');
  }
}

const FRAMES = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

export class StatusSpinner {
  private status = '';
  private frame = 0;
  private timer: NodeJS.Timeout | undefined;
  private readonly start: number;
  constructor(
    private readonly out: Out,
    private readonly label: string,
    private readonly now: () => number = Date.now,
    /** Redraw interval on a terminal, ms (0: redraw only on a new status, as tests do). */
    tickMs = 100,
  ) {
    this.start = now();
    if (out.isTTY && tickMs > 0) {
      this.timer = setInterval(() => this.draw(), tickMs);
      this.timer.unref();
    }
  }

  private draw(): void {
    const spent = formatDuration((this.now() - this.start) / 1000);
    this.frame = (this.frame + 1) % FRAMES.length;
    this.out.write(`\r\x1b[2K${FRAMES[this.frame]} ${this.label}: ${this.status || 'submitted'}  ${spent}`);
  }

  /** A status the poller saw (repeats are ignored in plain mode). */
  set(status: string): void {
    if (status === this.status) return;
    this.status = status;
    if (this.out.isTTY) this.draw();
    else this.out.write(`${this.label}: ${status}\n`);
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    if (this.out.isTTY && this.status) this.out.write('\n');
  }
}
