/**
 * Time in tests. A test asserts behaviour, never the machine's speed: the suite passes on a 2-core machine at load 10
 * (five runnable processes per core), where a process may wait a second for a core and work takes five times its idle
 * duration or more. Speed figures are the bench's (test/bench/). So:
 *
 * - A wait for what happens in the background (a delivery, a poll, a retry) is patient: `eventually`, `PATIENCE_MS`.
 *   Patience costs nothing when things go right, and only delays the report when they do not.
 * - A bound the server promises (a timeout that fires, a lease that runs out, a slow client cut off) is checked with
 *   `LOAD_SLACK_MS` on top: large beside a loaded machine's stalls, small beside "never" or the unbounded work it
 *   cuts short.
 * - "At once" and "off the event loop" are relative to a baseline measured in the same test, on the same machine at
 *   the same moment (`timed`): the refusal beside the work it avoids, a stall beside the work it would have been.
 */

/** How long a test waits for something that happens in the background before it reports it missing. */
export const PATIENCE_MS = 120_000;

/** What a test adds to a bound the server promises, for the stalls of a loaded machine (scheduling, collection). */
export const LOAD_SLACK_MS = 5_000;

/** Waits until `check` holds (polled every `everyMs`), or fails after `ms` with `what` (a text, or a function giving one). */
export async function eventually(
  check: () => boolean | Promise<boolean>,
  what: string | (() => string),
  ms = PATIENCE_MS,
  everyMs = 25,
): Promise<void> {
  const deadline = performance.now() + ms;
  while (!(await check())) {
    if (performance.now() > deadline) throw new Error(`not within ${ms} ms: ${typeof what === 'string' ? what : what()}`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}

/** How long `work` took (ms), with its value. */
export async function timed<T>(work: () => T | Promise<T>): Promise<{ ms: number; value: T }> {
  const started = performance.now();
  const value = await work();
  return { ms: performance.now() - started, value };
}

/** The median of `runs` timings of `work` (ms): a baseline that one stall of the machine does not move. */
export async function medianMs(work: () => unknown, runs = 5): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) times.push((await timed(work)).ms);
  times.sort((a, b) => a - b);
  return times[Math.floor(runs / 2)];
}
