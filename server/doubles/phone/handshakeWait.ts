import type { EventName } from './types.js';

/**
 * The handshake of the latest connect, from the call until it settles. The SDK sends
 * connectState {connected: true} at the radio link, before the handshake binds; an app that
 * asks for its file list from that listener (the public demo does) is answered once the
 * handshake has bound, as by a connected phone, where the simulator would still say
 * NOT_CONNECTED. A pending wait holds no timer, so it never keeps a process alive.
 */
export class HandshakeWait {
  private pending: { settled: Promise<boolean>; settle: (bound: boolean) => void } | undefined;
  /**
   * Whether the latest handshake bound and no link drop followed. A list asked for after a
   * refusal settled (the page hears connectState {connected: true} after the drop that
   * settled it) is then not sent: the simulator's 409 would show in a WebView's console.
   */
  private bound = false;

  /** A connect is being sent: until it settles, a refused list waits for it. */
  start(): void {
    this.settle(false);
    let settle!: (bound: boolean) => void;
    const settled = new Promise<boolean>((resolve) => {
      settle = resolve;
    });
    this.pending = { settled, settle };
  }

  /** Ends the wait: bound, or not (refused, disconnected, superseded). */
  settle(bound: boolean): void {
    this.bound = bound;
    const p = this.pending;
    this.pending = undefined;
    p?.settle(bound);
  }

  /** Each bridge event as the pump hands it out: bind settles it bound, a failure not. */
  observe(name: EventName, data: unknown): void {
    const d = data as { status?: number; connected?: boolean; failed?: boolean; state?: number };
    if (!this.pending) {
      // A link dropped later (depair, out of range): no longer bound.
      if (name === 'connectState' && (d.failed || d.connected === false)) this.bound = false;
      return;
    }
    if (name === 'bind') this.settle(d.status === 0);
    else if (name === 'connectFail') this.settle(false);
    else if (name === 'connectState' && (d.failed || d.connected === false)) this.settle(false);
  }

  /** Resolves whether the latest handshake bound (at once when none is under way). */
  get settled(): Promise<boolean> {
    return this.pending?.settled ?? Promise.resolve(this.bound);
  }
}
