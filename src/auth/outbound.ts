import dns from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';

/**
 * Outbound requests the server makes on behalf of its users (an identity provider's JWKS URL, set by any
 * organization owner): unless FEDERATION_PRIVATE_NETWORKS allows it, they go to public addresses only, so that an
 * owner cannot make the server reach into the network it runs in (SSRF). The check is made when the URL is set
 * (a clear 400) and again on every connection (the name may resolve elsewhere by then).
 */
const BLOCKED = new net.BlockList();
for (const [prefix, bits] of [
  ['0.0.0.0', 8], // "this" network
  ['10.0.0.0', 8],
  ['100.64.0.0', 10], // carrier-grade NAT
  ['127.0.0.0', 8],
  ['169.254.0.0', 16], // link-local, cloud metadata services
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, broadcast
] as const) {
  BLOCKED.addSubnet(prefix, bits, 'ipv4');
}
for (const [prefix, bits] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7], // unique local
  ['fe80::', 10], // link-local
  ['ff00::', 8], // multicast
  ['64:ff9b::', 96], // NAT64 of any IPv4 address
] as const) {
  BLOCKED.addSubnet(prefix, bits, 'ipv6');
}

/** Whether an IP address is loopback, private, link-local or otherwise not a public host. */
export function isPrivateAddress(address: string): boolean {
  const family = net.isIP(address);
  if (family === 0) return true;
  if (family === 6) {
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
    if (mapped) return BLOCKED.check(mapped[1], 'ipv4');
    return BLOCKED.check(address, 'ipv6');
  }
  return BLOCKED.check(address, 'ipv4');
}

const hostOf = (url: URL) => url.hostname.replace(/^\[(.*)\]$/, '$1');

/**
 * Why a URL may not be fetched, or undefined when it may: https only, and a host that is no private address
 * and resolves to none.
 */
export async function outboundProblem(value: string, field: string): Promise<string | undefined> {
  const url = new URL(value);
  if (url.protocol !== 'https:') return `${field} must be an https URL (FEDERATION_PRIVATE_NETWORKS=true allows http and private addresses).`;
  const host = hostOf(url);
  let addresses: string[];
  try {
    addresses = net.isIP(host) ? [host] : (await dns.promises.lookup(host, { all: true, verbatim: true })).map((a) => a.address);
  } catch {
    return `${field}: the host '${host}' cannot be resolved.`;
  }
  if (addresses.some(isPrivateAddress)) {
    return `${field}: '${host}' is a private, loopback or link-local address; the server fetches only public ones (FEDERATION_PRIVATE_NETWORKS=true allows them).`;
  }
  return undefined;
}

/** A DNS lookup that fails for names resolving to a private address. */
export const publicLookup: net.LookupFunction = (hostname, options, callback) => {
  dns.lookup(hostname, { ...options, all: true }, (err, addresses) => {
    if (err) return (callback as (e: Error | null) => void)(err);
    const list = addresses as dns.LookupAddress[];
    const blocked = list.find((a) => isPrivateAddress(a.address));
    if (blocked || list.length === 0) {
      const refused = Object.assign(new Error(`${hostname} resolves to ${blocked?.address ?? 'nothing'}, not a public address`), { code: 'EPRIVATEADDRESS' });
      return (callback as (e: Error | null) => void)(refused);
    }
    if ((options as dns.LookupOptions).all) return (callback as (e: null, a: dns.LookupAddress[]) => void)(null, list);
    return (callback as (e: null, a: string, f: number) => void)(null, list[0].address, list[0].family);
  });
};

const agents = {
  'http:': new http.Agent({ lookup: publicLookup, keepAlive: true }),
  'https:': new https.Agent({ lookup: publicLookup, keepAlive: true }),
};

/**
 * The agent for fetching a URL on users' behalf, or an error when the URL itself names a private address (a
 * literal IP is connected to without a lookup, so the agent alone would not see it).
 */
export function publicAgentFor(value: string): http.Agent | https.Agent | Error {
  const url = new URL(value);
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return new Error(`${url.protocol} is not fetched`);
  const host = hostOf(url);
  if (net.isIP(host) && isPrivateAddress(host)) return new Error(`${host} is not a public address`);
  if (host === 'localhost' || host.endsWith('.localhost')) return new Error(`${host} is not a public address`);
  return agents[url.protocol];
}
