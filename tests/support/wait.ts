/**
 * Waiting on a condition instead of sleeping: a check polled until it holds. A passing wait returns
 * at once; the deadline is only there so a failing test ends with what it waited for, not a hang.
 */

/** Resolves once `check()` holds; fails naming `what` when it still does not after `timeoutMs`. */
export async function waitFor(what: string, check: () => boolean, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
