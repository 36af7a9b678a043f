import type { Logger } from 'pino';

/**
 * The info-level stand-in for per-request lines: how many partner API and storage requests
 * were answered, and how many failed, logged with the first request after each minute (no
 * timer, so an idle simulator writes nothing).
 */
export class TrafficSummary {
  private windowStart = performance.now();
  private requests = 0;
  private clientErrors = 0;
  private serverErrors = 0;

  constructor(private readonly logger: Logger) {}

  count(status: number, nowMs: number): void {
    if (nowMs - this.windowStart >= 60_000) this.flush(nowMs);
    this.requests++;
    if (status >= 500 || status === 0) this.serverErrors++;
    else if (status >= 400) this.clientErrors++;
  }

  private flush(nowMs: number): void {
    if (this.requests > 0 && this.logger.isLevelEnabled('info')) {
      this.logger.info(
        {
          requests: this.requests,
          client_errors: this.clientErrors,
          server_errors_or_dropped: this.serverErrors,
          seconds: Math.round((nowMs - this.windowStart) / 1000),
        },
        'traffic summary (per-request lines: PARTNER_SIM_ACCESS_LOG=on)',
      );
    }
    this.windowStart = nowMs;
    this.requests = this.clientErrors = this.serverErrors = 0;
  }
}
