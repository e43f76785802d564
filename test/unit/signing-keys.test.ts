import { describe, expect, it } from 'vitest';
import { KEY_SET_MAX_AGE_MS, SigningKeys, UNKNOWN_KID_REFRESH_MS } from '../../src/auth/signing-keys';

/** A JWKS client whose key set, failures and delays the test sets, counting fetches. */
function fakeClient(kids: string[]) {
  const client = {
    kids,
    fetches: 0,
    failing: false,
    /** While set, fetches wait until the test calls `release()`. */
    held: undefined as Promise<void> | undefined,
    release: () => {},
    hold() {
      client.held = new Promise((resolve) => (client.release = resolve));
    },
    async getSigningKeys() {
      client.fetches++;
      await new Promise((resolve) => setTimeout(resolve, 5));
      await client.held;
      if (client.failing) throw new Error('JWKS unreachable');
      return client.kids.map((kid) => ({ kid, getPublicKey: () => `key-${kid}` }));
    },
  };
  return client;
}

describe('signing keys', () => {
  it('answer known kids from the key set, and unknown kids cause at most one fetch per interval', async () => {
    let now = 0;
    const client = fakeClient(['a']);
    const keys = new SigningKeys(client as never, () => now);
    expect(await keys.get('a')).toBe('key-a');
    expect(client.fetches).toBe(1);
    // The set was fetched just now: random kids get no key, and no fetch.
    const early = await Promise.all(Array.from({ length: 100 }, (_, i) => keys.get(`early-${i}`)));
    expect(early.every((k) => k === undefined)).toBe(true);
    expect(client.fetches).toBe(1);
    // Once the interval has passed, a flood of random kids shares one fetch, then none until the next interval.
    now += UNKNOWN_KID_REFRESH_MS;
    const unknown = await Promise.all(Array.from({ length: 200 }, (_, i) => keys.get(`random-${i}`)));
    expect(unknown.every((k) => k === undefined)).toBe(true);
    expect(client.fetches).toBe(2);
    expect(await keys.get('random-x')).toBeUndefined();
    expect(await keys.get('a')).toBe('key-a');
    expect(client.fetches).toBe(2);
    // A key rotated in at the issuer is found once the interval has passed.
    client.kids = ['a', 'b'];
    expect(await keys.get('b')).toBeUndefined();
    now += UNKNOWN_KID_REFRESH_MS;
    expect(await keys.get('b')).toBe('key-b');
    expect(client.fetches).toBe(3);
  });

  it('answer a known kid at once while an old key set is fetched again, and unknown kids wait for that fetch', async () => {
    let now = 0;
    const client = fakeClient(['a']);
    const keys = new SigningKeys(client as never, () => now);
    expect(await keys.get('a')).toBe('key-a');
    client.kids = ['a', 'b'];
    client.hold();
    now += KEY_SET_MAX_AGE_MS + 1;
    const waited = new Promise((resolve) => setTimeout(() => resolve('waited for the fetch'), 1_000));
    expect(await Promise.race([keys.get('a'), waited])).toBe('key-a');
    expect(client.fetches).toBe(2);
    const rotated = keys.get('b');
    expect(await keys.get('a')).toBe('key-a');
    client.release();
    expect(await rotated).toBe('key-b');
    expect(client.fetches).toBe(2);
  });

  it('keep the known keys when the issuer cannot be reached, and refresh the set when it is old', async () => {
    let now = 0;
    const client = fakeClient(['a']);
    const keys = new SigningKeys(client as never, () => now);
    expect(await keys.get('a')).toBe('key-a');
    client.failing = true;
    now += KEY_SET_MAX_AGE_MS + 1;
    expect(await keys.get('a')).toBe('key-a');
    expect(client.fetches).toBe(2);
    await new Promise((resolve) => setTimeout(resolve, 20));
    // While the issuer is down, requests do not each try again; an unknown kid is refused at once.
    for (let i = 0; i < 20; i++) expect(await keys.get('a')).toBe('key-a');
    expect(await keys.get('c')).toBeUndefined();
    expect(client.fetches).toBe(2);
    // The next interval tries again: an unknown kid waiting for a failed fetch learns why.
    now += UNKNOWN_KID_REFRESH_MS;
    await expect(keys.get('c')).rejects.toThrow('JWKS unreachable');
    expect(await keys.get('a')).toBe('key-a');
    client.failing = false;
    client.kids = ['c'];
    now += UNKNOWN_KID_REFRESH_MS;
    expect(await keys.get('c')).toBe('key-c');
    expect(await keys.get('a')).toBeUndefined(); // dropped by the issuer, dropped here
  });
});
