import { JwksClient } from 'jwks-rsa';

/** How often unknown `kid`s may make the key set be fetched again: once per interval for all of them together. */
export const UNKNOWN_KID_REFRESH_MS = 30_000;
/** How old the key set may get before it is fetched again (rotation), keeping the old keys should that fail. */
export const KEY_SET_MAX_AGE_MS = 10 * 60_000;

/**
 * The issuer's signing keys, kept here as a whole key set (`kid` -> public key). A known kid is always answered
 * from it; a token naming an unknown kid may cause one refresh per `UNKNOWN_KID_REFRESH_MS`, shared by every request
 * waiting at that moment, and otherwise gets no key at once. So tokens with random kids can neither make the
 * server hammer the issuer nor use up a fetch budget that real users need (jwks-rsa's rate limit did both).
 */
export class SigningKeys {
  private keys = new Map<string, string>();
  private fetchedAt = -Infinity;
  private refreshing: Promise<void> | undefined;
  private lastUnknownRefresh = -Infinity;

  constructor(
    private readonly client: Pick<JwksClient, 'getSigningKeys'>,
    private readonly now: () => number = Date.now,
    private readonly refreshMs = UNKNOWN_KID_REFRESH_MS,
    private readonly maxAgeMs = KEY_SET_MAX_AGE_MS,
  ) {}

  /** The public key (PEM) for `kid`, or undefined when the issuer has none by that name. */
  async get(kid: string): Promise<string | undefined> {
    if (this.now() - this.fetchedAt > this.maxAgeMs) await this.refresh().catch(() => undefined);
    const known = this.keys.get(kid);
    if (known !== undefined) return known;
    if (this.now() - this.lastUnknownRefresh < this.refreshMs) return undefined;
    this.lastUnknownRefresh = this.now();
    await this.refresh();
    return this.keys.get(kid);
  }

  /** Fetches the key set; concurrent callers share one fetch. A failed fetch keeps the keys known so far. */
  private refresh(): Promise<void> {
    this.refreshing ??= (async () => {
      try {
        const keys = await this.client.getSigningKeys();
        this.keys = new Map(keys.filter((k) => k.kid).map((k) => [k.kid, k.getPublicKey()]));
        this.fetchedAt = this.now();
      } catch (err) {
        // Try again after the refresh interval, not on every request while the issuer is down.
        this.fetchedAt = this.now() - this.maxAgeMs + this.refreshMs;
        throw err;
      } finally {
        this.refreshing = undefined;
      }
    })();
    return this.refreshing;
  }
}
