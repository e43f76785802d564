/**
 * Recent results by a string key, bounded by their count and by the characters they keep alive (what a key or a
 * value holds on to): the oldest entry goes first. A value counted as more than the whole bound is not kept.
 */
export class BoundedMemo<V> {
  private readonly entries = new Map<string, { value: V; chars: number }>();
  private chars = 0;

  constructor(
    private readonly maxEntries: number,
    private readonly maxChars: number,
  ) {}

  get(key: string): V | undefined {
    return this.entries.get(key)?.value;
  }

  /** Keeps `value` under `key`, counted as `chars` characters. */
  set(key: string, value: V, chars: number): void {
    if (chars > this.maxChars) return;
    const known = this.entries.get(key);
    if (known) {
      this.entries.delete(key);
      this.chars -= known.chars;
    }
    while (this.entries.size >= this.maxEntries || this.chars + chars > this.maxChars) {
      const [oldest, entry] = this.entries.entries().next().value!;
      this.entries.delete(oldest);
      this.chars -= entry.chars;
    }
    this.entries.set(key, { value, chars });
    this.chars += chars;
  }
}
