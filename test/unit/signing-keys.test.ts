import { describe, expect, it } from 'vitest';
import { KEY_SET_MAX_AGE_MS, SigningKeys, UNKNOWN_KID_REFRESH_MS } from '../../src/auth/signing-keys';

/** A JWKS client whose key set and failures the test sets, counting fetches. */
function fakeClient(kids: string[]) {
  const client = {
    kids,
    fetches: 0,
    failing: false,
    async getSigningKeys() {
      client.fetches++;
      await new Promise((resolve) => setTimeout(resolve, 5));
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
    // A flood of random kids: one refresh for all of them, then none until the interval has passed.
    const unknown = await Promise.all(Array.from({ length: 200 }, (_, i) => keys.get(`random-${i}`)));
    expect(unknown.every((k) => k === undefined)).toBe(true);
    expect(client.fetches).toBe(2);
    expect(await keys.get('a')).toBe('key-a');
    expect(client.fetches).toBe(2);
    // A key rotated in at the issuer is found once the interval has passed.
    client.kids = ['a', 'b'];
    expect(await keys.get('b')).toBeUndefined();
    now += UNKNOWN_KID_REFRESH_MS + 1;
    expect(await keys.get('b')).toBe('key-b');
    expect(client.fetches).toBe(3);
  });

  it('keep the known keys when the issuer cannot be reached, and refresh the set when it is old', async () => {
    let now = 0;
    const client = fakeClient(['a']);
    const keys = new SigningKeys(client as never, () => now);
    expect(await keys.get('a')).toBe('key-a');
    client.failing = true;
    now += KEY_SET_MAX_AGE_MS + 1;
    expect(await keys.get('a')).toBe('key-a');
    const fetches = client.fetches;
    // While the issuer is down, requests do not each try again.
    for (let i = 0; i < 20; i++) expect(await keys.get('a')).toBe('key-a');
    expect(client.fetches).toBe(fetches);
    client.failing = false;
    client.kids = ['c'];
    now += UNKNOWN_KID_REFRESH_MS + 1;
    expect(await keys.get('c')).toBe('key-c');
    expect(await keys.get('a')).toBeUndefined(); // dropped by the issuer, dropped here
  });
});
