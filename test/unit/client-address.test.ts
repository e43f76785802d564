import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import { ClientAddresses } from '../../src/common/client-address';

/** A request as the server sees it: the connection's peer and the headers sent. */
const request = (peer: string | undefined, headers: Record<string, string> = {}) => ({ socket: { remoteAddress: peer }, connection: { remoteAddress: peer }, headers }) as unknown as IncomingMessage;

describe('the client address', () => {
  it('is the connection peer without TRUST_PROXY, and forwarded headers are dropped', () => {
    const clients = new ClientAddresses(false);
    const req = request('192.0.2.1', { 'x-forwarded-for': '198.51.100.7', 'x-forwarded-proto': 'https', 'x-forwarded-host': 'evil.example', host: 'server' });
    expect(clients.trustsProxies).toBe(false);
    expect(clients.isProxy('192.0.2.1')).toBe(false);
    expect(clients.of(req)).toBe('192.0.2.1');
    clients.dropUntrusted(req);
    expect(req.headers).toEqual({ host: 'server' });
  });

  it('is, with a hop count, the address that many proxies to the left of the peer, whatever the client prepended', () => {
    const one = new ClientAddresses({ hops: 1 });
    expect(one.of(request('10.0.0.1', { 'x-forwarded-for': 'forged, 198.51.100.7' }))).toBe('198.51.100.7');
    expect(one.of(request('10.0.0.1'))).toBe('10.0.0.1');
    const two = new ClientAddresses({ hops: 2 });
    expect(two.of(request('10.0.0.1', { 'x-forwarded-for': 'forged, 198.51.100.7, 10.0.0.2' }))).toBe('198.51.100.7');
    const req = request('10.0.0.1', { 'x-forwarded-proto': 'https' });
    two.dropUntrusted(req);
    expect(req.headers).toEqual({ 'x-forwarded-proto': 'https' });
  });

  it('is, with proxy addresses, the rightmost forwarded address that is not a trusted proxy', () => {
    const clients = new ClientAddresses({ addresses: ['10.0.0.0/8', '::1'] });
    expect(clients.of(request('10.0.0.1', { 'x-forwarded-for': 'forged, 198.51.100.7, 10.0.0.2' }))).toBe('198.51.100.7');
    expect(clients.of(request('::1', { 'x-forwarded-for': '198.51.100.8' }))).toBe('198.51.100.8');
    // The IPv4 peer as Node reports it on a dual-stack socket.
    expect(clients.of(request('::ffff:10.0.0.1', { 'x-forwarded-for': '198.51.100.9' }))).toBe('198.51.100.9');
    // A peer that is no trusted proxy: its own address, its forwarded headers dropped.
    const direct = request('192.0.2.1', { 'x-forwarded-for': '10.0.0.5', 'x-forwarded-host': 'evil.example' });
    expect(clients.of(direct)).toBe('192.0.2.1');
    clients.dropUntrusted(direct);
    expect(direct.headers).toEqual({});
    expect(clients.of(request(undefined))).toBe('');
    // Asked again (the answers are remembered), the same.
    expect(clients.of(request('10.0.0.1', { 'x-forwarded-for': 'forged, 198.51.100.7, 10.0.0.2' }))).toBe('198.51.100.7');
    expect(clients.of(request('192.0.2.1', { 'x-forwarded-for': '10.0.0.5' }))).toBe('192.0.2.1');
  });
});
