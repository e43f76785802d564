import { describe, expect, it } from 'vitest';
import http from 'node:http';
import { isPrivateAddress, publicAgentFor, publicLookup } from '../../src/auth/outbound';

describe('outbound requests on users\' behalf', () => {
  it('tells private, loopback, link-local and reserved addresses from public ones', () => {
    for (const a of ['127.0.0.1', '10.0.0.1', '172.16.5.4', '192.168.0.1', '169.254.169.254', '100.64.0.1', '0.0.0.0', '::1', '::', 'fe80::1', 'fd00::1', '::ffff:127.0.0.1', '::ffff:10.1.1.1', '64:ff9b::a00:1', '224.0.0.1', 'not-an-ip']) {
      expect(isPrivateAddress(a), a).toBe(true);
    }
    for (const a of ['1.1.1.1', '8.8.8.8', '172.32.0.1', '2606:4700:4700::1111', '::ffff:1.1.1.1']) expect(isPrivateAddress(a), a).toBe(false);
  });

  it('refuses literal private hosts before any connection; other hosts get the agent that checks each lookup', () => {
    for (const url of ['http://127.0.0.1/jwks', 'https://[::1]/x', 'https://localhost/x', 'https://a.localhost/x', 'ftp://example.com/x']) {
      expect(publicAgentFor(url), url).toBeInstanceOf(Error);
    }
    expect(publicAgentFor('https://login.example.com/keys')).not.toBeInstanceOf(Error);
  });

  it('the agent\'s lookup refuses a name that resolves to a private address, so a connection never starts', async () => {
    const error = await new Promise<NodeJS.ErrnoException | null>((resolve) => publicLookup('localhost', {}, (err) => resolve(err)));
    expect(error?.code).toBe('EPRIVATEADDRESS');
    // Through an agent using it, as jwks-rsa does: a server listening on loopback is never reached.
    let reached = false;
    const server = http.createServer((_, res) => { reached = true; res.end('{}'); });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as { port: number }).port;
    const agent = new http.Agent({ lookup: publicLookup });
    const failure = await new Promise<NodeJS.ErrnoException>((resolve) => http.get({ host: 'localhost', port, path: '/', agent }, () => resolve(new Error('answered'))).on('error', resolve));
    server.close();
    expect(failure.code).toBe('EPRIVATEADDRESS');
    expect(reached).toBe(false);
  });
});
