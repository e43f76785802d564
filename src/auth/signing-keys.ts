import { JwksClient } from 'jwks-rsa';

/** How often the key set may be fetched: at most once per interval, for unknown `kid`s and age alike. */
export const UNKNOWN_KID_REFRESH_MS = 30_000;
/** How old the key set may get before it is fetched again (rotation), keeping the old keys should that fail. */
export const KEY_SET_MAX_AGE_MS = 10 * 60_000;

/**
 * The issuer's signing keys, kept here as a whole key set (`kid` -> public key). A known kid is always answered
 * from it at once; when the set is older than `KEY_SET_MAX_AGE_MS` it is fetched again beside that request, and a
 * failed fetch keeps the keys known so far. A token naming an unknown kid waits for the fetch under way, or starts
 * one when the last began at least `UNKNOWN_KID_REFRESH_MS` ago, and otherwise gets no key at once. So tokens with
 * random kids can neither make the server hammer the issuer nor use up a fetch budget that real users need
 * (jwks-rsa's rate limit did both).
 */
export class SigningKeys {
  private keys = new Map<string, string>();
  /** When the key set was last fetched successfully. */
  private fetchedAt = -Infinity;
  /** When the last fetch began, whether it succeeded or not. */
  private attemptedAt = -Infinity;
  private refreshing: Promise<void> | undefined;

  constructor(
    private readonly client: Pick<JwksClient, 'getSigningKeys'>,
    // Read at each call, not captured once: tests move the clock by replacing Date.
    private readonly now: () => number = () => Date.now(),
    private readonly refreshMs = UNKNOWN_KID_REFRESH_MS,
    private readonly maxAgeMs = KEY_SET_MAX_AGE_MS,
  ) {}

  /**
   * The public key (PEM) for `kid`, or undefined when the issuer has none by that name (or none as of the last
   * fetch, when the next one may not start yet). Rejects when the fetch this call waited for failed.
   */
  async get(kid: string): Promise<string | undefined> {
    const known = this.keys.get(kid);
    if (known !== undefined) {
      // Rotation: an old set is fetched again without making this request wait; a failure keeps the keys.
      if (this.now() - this.fetchedAt > this.maxAgeMs) this.refresh()?.catch(() => undefined);
      return known;
    }
    const refreshing = this.refresh();
    if (!refreshing) return undefined;
    await refreshing;
    return this.keys.get(kid);
  }

  /**
   * The fetch of the key set under way, shared by every caller; else a new one, unless the last began less than
   * `refreshMs` ago (undefined then).
   */
  private refresh(): Promise<void> | undefined {
    if (this.refreshing) return this.refreshing;
    if (this.now() - this.attemptedAt < this.refreshMs) return undefined;
    this.attemptedAt = this.now();
    this.refreshing = this.fetch().finally(() => {
      this.refreshing = undefined;
    });
    return this.refreshing;
  }

  /** Replaces the key set with the issuer's current one; keys the issuer dropped are dropped here too. */
  private async fetch(): Promise<void> {
    const keys = await this.client.getSigningKeys();
    this.keys = new Map(keys.filter((k) => k.kid).map((k) => [k.kid, k.getPublicKey()]));
    this.fetchedAt = this.now();
  }
}
