/**
 * The seeded random numbers the generated tests draw from (fuzzing, random queries, generated descriptors): one
 * generator, so the same seed gives the same sequence in every test that uses it.
 */

export interface Rnd {
  /** [0, 1) */
  next(): number;
  /** A whole number in [0, n). */
  int(n: number): number;
  /** One of `items`, each as likely. */
  pick<T>(items: readonly T[]): T;
  /** True with probability `p`. */
  chance(p: number): boolean;
}

/** mulberry32: tiny, fast, and the same sequence for the same seed. */
export function seededRandom(seed: number): Rnd {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (n: number) => Math.floor(next() * n);
  const pick = <T>(items: readonly T[]): T => items[int(items.length)];
  const chance = (p: number) => next() < p;
  return { next, int, pick, chance };
}
