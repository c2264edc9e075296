/**
 * The server start in progress. The extension starts its server in the background (finding
 * Python and the server's own start-up take seconds), so a command called meanwhile waits for
 * that start, up to a bound, instead of failing at once or hanging without end.
 */

/** Resolves after `ms` milliseconds (injected, so that tests drive the time). */
export type Delay = (ms: number) => Promise<void>;

/** A delay that does not keep the extension host (or a test run) alive on its own. */
export const realDelay: Delay = (ms) =>
  new Promise((resolve) => {
    setTimeout(resolve, ms).unref();
  });

export class PendingStart {
  private current: Promise<void> | undefined;

  constructor(private readonly delay: Delay = realDelay) {}

  /** Runs `start`, or joins the start already in progress (one start at a time). */
  run(start: () => Promise<void>): Promise<void> {
    if (this.current !== undefined) {
      return this.current;
    }
    const started = start().finally(() => {
      if (this.current === started) {
        this.current = undefined;
      }
    });
    this.current = started;
    return started;
  }

  /** The start in progress no longer counts (it was stopped); the next run() starts anew. */
  forget(): void {
    this.current = undefined;
  }

  /**
   * Resolves true once no start is in progress (at once when none is; a start that replaced a
   * stopped one is waited for too), false when `limitMs` passed first.
   */
  async settled(limitMs: number): Promise<boolean> {
    if (this.current === undefined) {
      return true;
    }
    const timedOut = this.delay(limitMs).then(() => false);
    while (this.current !== undefined) {
      const finished = this.current.then(
        () => true,
        () => true,
      );
      if (!(await Promise.race([finished, timedOut]))) {
        return false;
      }
    }
    return true;
  }
}
