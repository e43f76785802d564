/**
 * Counts the turns of the event loop (one `setImmediate` each) from now until `stop()`: how a test sees that work
 * let other callbacks in, without timing it.
 */
export function countLoopTurns(): { readonly turns: number; stop(): number } {
  let turns = 0;
  let counting = true;
  const tick = () => {
    turns++;
    if (counting) setImmediate(tick);
  };
  setImmediate(tick);
  return {
    get turns() {
      return turns;
    },
    stop() {
      counting = false;
      return turns;
    },
  };
}
