import { afterEach, describe, expect, it, vi } from 'vitest';
import { generateKeyPairSync } from 'node:crypto';
import dns from 'node:dns';
import http from 'node:http';
import jwt from 'jsonwebtoken';
import { classifyAddress, describeAddressClass, outboundProblem, publicAgentFor, publicLookup } from '../../src/auth/outbound';
import { createTokenVerifier } from '../../src/auth/jwt';
import { loadConfig } from '../../src/config';
import { AasxServerClient, pushToS3 } from '../../src/push/pushers';

describe('the address classifier', () => {
  // [address, range it is refused as (or 'unicast' when public), embedded IPv4 address that decided]
  const refused: [string, string, string?][] = [
    ['127.0.0.1', 'loopback'],
    ['10.0.0.1', 'private'],
    ['172.16.5.4', 'private'],
    ['192.168.0.1', 'private'],
    ['169.254.169.254', 'linkLocal'],
    ['100.64.0.1', 'carrierGradeNat'],
    ['0.0.0.0', 'unspecified'],
    ['224.0.0.1', 'multicast'],
    ['255.255.255.255', 'broadcast'],
    ['240.0.0.1', 'reserved'],
    ['::1', 'loopback'],
    ['::', 'unspecified'],
    ['fe80::1', 'linkLocal'],
    ['fe80::1%eth0', 'linkLocal'],
    ['fd00::1', 'uniqueLocal'],
    ['fc00::1', 'uniqueLocal'],
    ['ff02::1', 'multicast'],
    ['fec0::1', 'deprecatedSiteLocal'],
    ['2001:db8::1', 'reserved'],
    // IPv4-mapped and IPv4-translated
    ['::ffff:127.0.0.1', 'loopback', '127.0.0.1'],
    ['::ffff:a00:1', 'private', '10.0.0.1'],
    ['::ffff:0:7f00:1', 'loopback', '127.0.0.1'],
    // IPv4-compatible (deprecated): ::a.b.c.d
    ['::127.0.0.1', 'loopback', '127.0.0.1'],
    ['::7f00:1', 'loopback', '127.0.0.1'],
    ['::a9fe:a9fe', 'linkLocal', '169.254.169.254'],
    ['::0.0.0.2', 'unspecified', '0.0.0.2'],
    // 6to4: 2002:AABB:CCDD::
    ['2002:7f00:1::', 'loopback', '127.0.0.1'],
    ['2002:c0a8:101::1', 'private', '192.168.1.1'],
    ['2002:a9fe:a9fe:1:2:3:4:5', 'linkLocal', '169.254.169.254'],
    // NAT64 64:ff9b::/96; the local-use 64:ff9b:1::/48 is refused whatever it embeds
    ['64:ff9b::7f00:1', 'loopback', '127.0.0.1'],
    ['64:ff9b::10.1.2.3', 'private', '10.1.2.3'],
    ['64:ff9b:1::808:808', 'rfc6052'],
    // Teredo: server at bits 32-63, client inverted in the last 32 bits
    ['2001:0:7f00:1:0:0:f7f7:f7f7', 'loopback', '127.0.0.1'], // server 127.0.0.1, client 8.8.8.8
    ['2001:0:808:808:0:0:80ff:fffe', 'loopback', '127.0.0.1'], // server 8.8.8.8, client 127.0.0.1
    ['2001:0:808:808:8000:0:f5ff:fffe', 'private', '10.0.0.1'], // client 10.0.0.1
    // not addresses at all
    ['not-an-ip', 'invalid'],
    ['', 'invalid'],
    ['0x7f.1', 'invalid'],
    ['127.1', 'invalid'],
  ];
  const allowed: [string, string?][] = [
    ['1.1.1.1'],
    ['8.8.8.8'],
    ['172.32.0.1'],
    ['2606:4700:4700::1111'],
    ['::ffff:1.1.1.1', '1.1.1.1'],
    ['::808:808', '8.8.8.8'],
    ['2002:0808:0808::', '8.8.8.8'],
    ['2002:808:808:1::1', '8.8.8.8'],
    ['64:ff9b::8.8.8.8', '8.8.8.8'],
    ['2001:0:808:808:0:0:f7f7:f7f7', '8.8.8.8'], // server and client 8.8.8.8
  ];

  it.each(refused)('refuses %s as %s', (address, range, embedded) => {
    const c = classifyAddress(address);
    expect(c).toMatchObject({ public: false, range });
    expect(c.embedded?.address).toBe(embedded);
  });

  it.each(allowed)('lets %s through', (address, embedded) => {
    const c = classifyAddress(address);
    expect(c).toMatchObject({ public: true, range: 'unicast' });
    expect(c.embedded?.address).toBe(embedded);
  });

  it('says what an address is and what it embeds', () => {
    expect(describeAddressClass(classifyAddress('2002:7f00:1::'))).toBe('a loopback address (the 6to4 form of 127.0.0.1)');
    expect(describeAddressClass(classifyAddress('::7f00:1'))).toBe('a loopback address (the IPv4-compatible form of 127.0.0.1)');
    expect(describeAddressClass(classifyAddress('2001:0:808:808:0:0:80ff:fffe'))).toBe('a loopback address (the Teredo client form of 127.0.0.1)');
    expect(describeAddressClass(classifyAddress('::'))).toBe('an unspecified address');
    expect(describeAddressClass(classifyAddress('fd00::1'))).toBe('a unique-local address');
  });
});

describe('URLs the server is asked to fetch', () => {
  it('are refused at registration for every refused form of a literal address, as URLs write them', async () => {
    for (const host of ['[::127.0.0.1]', '[2002:7f00:1::]', '[::ffff:127.0.0.1]', '[::ffff:0:127.0.0.1]', '[64:ff9b::127.0.0.1]', '[2001:0:808:808::80ff:fffe]', '[fd12::1]', '[fe80::1]', '[ff02::1]', '[::]', '0x7f.1', '2130706433', '0', 'localhost', 'a.localhost', 'LOCALHOST.']) {
      const problem = await outboundProblem(`https://${host}/x`, 'url', 'PUSH_PRIVATE_NETWORKS');
      expect(problem, host).toMatch(/^url: .* the server connects to public addresses only \(PUSH_PRIVATE_NETWORKS=true allows others\)\.$/);
    }
    expect(await outboundProblem('http://8.8.8.8/x', 'url', 'PUSH_PRIVATE_NETWORKS')).toMatch(/must be an https URL/);
    for (const host of ['8.8.8.8', '[2002:808:808::]', '[64:ff9b::8.8.8.8]']) expect(await outboundProblem(`https://${host}/x`, 'url', 'PUSH_PRIVATE_NETWORKS'), host).toBeUndefined();
  });

  it('refuses literal hosts that are not public before any connection; other hosts get the agent that checks each lookup', () => {
    for (const url of ['http://127.0.0.1/jwks', 'https://[::1]/x', 'https://[::127.0.0.1]/x', 'https://[2002:7f00:1::]/x', 'https://[64:ff9b::a00:1]/x', 'https://localhost/x', 'https://a.localhost/x', 'https://localhost./x', 'ftp://example.com/x']) {
      expect(publicAgentFor(url), url).toBeInstanceOf(Error);
    }
    expect(publicAgentFor('https://login.example.com/keys')).not.toBeInstanceOf(Error);
    expect(publicAgentFor('https://[2002:808:808::]/keys')).not.toBeInstanceOf(Error);
  });
});

describe('connections made on users\' behalf', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  /** A server on loopback that records whether anyone reached it. */
  async function loopbackServer(): Promise<{ port: number; reached: () => boolean; close: () => Promise<void> }> {
    let reached = false;
    const server = http.createServer((_, res) => {
      reached = true;
      res.end('{}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return {
      port: (server.address() as { port: number }).port,
      reached: () => reached,
      close: () => new Promise<void>((resolve) => server.close(() => resolve())),
    };
  }

  /** Names under `.test` resolve as the map says (the form a DNS answer for a name the user chose may take at connection time). */
  function resolveAs(answers: Record<string, string>): void {
    const real = dns.lookup;
    vi.spyOn(dns, 'lookup').mockImplementation(((hostname: string, options: dns.LookupAllOptions, callback: (err: Error | null, addresses: dns.LookupAddress[]) => void) => {
      const address = answers[hostname];
      if (!address) return (real as (...args: unknown[]) => void)(hostname, options, callback);
      process.nextTick(() => callback(null, [{ address, family: address.includes(':') ? 6 : 4 }]));
    }) as unknown as typeof dns.lookup);
  }

  it('the agent\'s lookup refuses a name that resolves to a private address, so a connection never starts', async () => {
    const error = await new Promise<NodeJS.ErrnoException | null>((resolve) => publicLookup('localhost', {}, (err) => resolve(err)));
    expect(error?.code).toBe('EPRIVATEADDRESS');
    const target = await loopbackServer();
    const agent = new http.Agent({ lookup: publicLookup });
    const failure = await new Promise<NodeJS.ErrnoException>((resolve) => http.get({ host: 'localhost', port: target.port, path: '/', agent }, () => resolve(new Error('answered'))).on('error', resolve));
    await target.close();
    expect(failure.code).toBe('EPRIVATEADDRESS');
    expect(target.reached()).toBe(false);
  });

  it('the agents refuse a literal address that is not public as they connect, whatever URL led there', async () => {
    const target = await loopbackServer();
    try {
      const agent = publicAgentFor('http://example.com/') as http.Agent;
      for (const host of ['127.0.0.1', '[::ffff:127.0.0.1]', '[::127.0.0.1]', '[2002:7f00:1::]']) {
        const failure = await new Promise<NodeJS.ErrnoException>((resolve) =>
          http.get(`http://${host}:${target.port}/`, { agent }, () => resolve(new Error('answered'))).on('error', resolve),
        );
        expect(failure.code, host).toBe('EPRIVATEADDRESS');
      }
      expect(target.reached()).toBe(false);
    } finally {
      await target.close();
    }
  });

  it('the lookup refuses names that resolve to embedded loopback forms too', async () => {
    resolveAs({ 'six.test': '2002:7f00:1::', 'compat.test': '::7f00:1', 'public.test': '8.8.8.8' });
    for (const name of ['six.test', 'compat.test']) {
      const error = await new Promise<NodeJS.ErrnoException | null>((resolve) => publicLookup(name, { all: true }, (err) => resolve(err)));
      expect(error?.code, name).toBe('EPRIVATEADDRESS');
      expect(error?.message, name).toMatch(/loopback address/);
    }
    const answer = await new Promise<unknown>((resolve) => publicLookup('public.test', { all: true }, (err, addresses) => resolve(err ?? addresses)));
    expect(answer).toEqual([{ address: '8.8.8.8', family: 4 }]);
  });

  it('an AASX File Server target whose name resolves to loopback at push time is never reached', async () => {
    const target = await loopbackServer();
    resolveAs({ 'files.rebind.test': '127.0.0.1' });
    try {
      const client = new AasxServerClient({ name: null, url: `http://files.rebind.test:${target.port}/api` }, { current: async () => null }, { privateNetworks: false, timeoutMs: 5_000 });
      await expect(client.delete('package')).rejects.toMatchObject({ code: 'EPRIVATEADDRESS' });
      // A literal address is refused without a lookup.
      const literal = new AasxServerClient({ name: null, url: `http://[::ffff:127.0.0.1]:${target.port}/api` }, { current: async () => null }, { privateNetworks: false, timeoutMs: 5_000 });
      await expect(literal.delete('package')).rejects.toMatchObject({ code: 'EPRIVATEADDRESS' });
      expect(target.reached()).toBe(false);
    } finally {
      await target.close();
    }
  });

  it('an S3 target whose endpoint resolves to loopback at push time is never reached', async () => {
    const target = await loopbackServer();
    resolveAs({ 's3.rebind.test': '127.0.0.1' });
    try {
      const settings = { name: null, bucket: 'bucket', region: 'us-east-1', prefix: '', forcePathStyle: true, format: 'json' as const, accessKeyId: 'key' };
      const options = { privateNetworks: false, timeoutMs: 5_000 };
      await expect(pushToS3({ ...settings, endpoint: `http://s3.rebind.test:${target.port}` }, 'secret', 'urn:x', null, options)).rejects.toMatchObject({ code: 'EPRIVATEADDRESS' });
      await expect(pushToS3({ ...settings, endpoint: `http://[2002:7f00:1::]:${target.port}` }, 'secret', 'urn:x', null, options)).rejects.toMatchObject({ code: 'EPRIVATEADDRESS' });
      expect(target.reached()).toBe(false);
    } finally {
      await target.close();
    }
  });

  it('a JWKS URL whose name resolves to loopback when keys are fetched is never reached; its tokens are refused', async () => {
    const target = await loopbackServer();
    resolveAs({ 'idp.rebind.test': '127.0.0.1' });
    try {
      const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
      const auth = { ...loadConfig({}).auth, federationPrivateNetworks: false };
      const trust = { id: 't', organizationId: 'o', tenantId: null, issuer: 'https://idp.rebind.test', audience: 'aud', rolesClaim: 'roles' };
      for (const jwksUri of [`http://idp.rebind.test:${target.port}/jwks`, `http://[::127.0.0.1]:${target.port}/jwks`]) {
        const verifier = createTokenVerifier(auth, undefined, { byIssuer: async () => [{ ...trust, jwksUri }] });
        const token = jwt.sign({ sub: 'someone' }, privateKey, { algorithm: 'RS256', keyid: 'k1', issuer: trust.issuer, audience: 'aud' });
        await expect(verifier.verify(token), jwksUri).rejects.toThrow(/not a public address/);
      }
      expect(target.reached()).toBe(false);
    } finally {
      await target.close();
    }
  });
});
