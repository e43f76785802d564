import dns from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import type { Duplex } from 'node:stream';
import ipaddr from 'ipaddr.js';

/**
 * Outbound requests the server makes on behalf of its users (an identity provider's JWKS URL, set by any
 * organization owner; a push target's URL or S3 endpoint, set by any tenant contributor): unless the setting named
 * with each use (FEDERATION_PRIVATE_NETWORKS, PUSH_PRIVATE_NETWORKS) allows it, they go to public addresses only,
 * so that a user cannot make the server reach into the network it runs in (SSRF). The check is made when the URL is
 * set (a clear 400) and again on every connection (the name may resolve elsewhere by then).
 */

/** How an IPv6 address carries an IPv4 address, which is then the one classified. */
export type Embedding = 'IPv4-mapped' | 'IPv4-translated' | 'IPv4-compatible' | 'NAT64' | '6to4' | 'Teredo server' | 'Teredo client';

export interface AddressClass {
  /** Whether the server may connect to it: a unicast address in no special range (ipaddr.js's `unicast`). */
  public: boolean;
  /** ipaddr.js's range name (`loopback`, `private`, `uniqueLocal`, ...) of the address or of the IPv4 address it embeds. */
  range: string;
  /** The embedded IPv4 address that decided, and how it was embedded. */
  embedded?: { form: Embedding; address: string };
}

const NAT64 = ipaddr.IPv6.parseCIDR('64:ff9b::/96');

const ipv4Of = (high: number, low: number) => new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff]);

/** The IPv4 addresses an IPv6 address embeds, by the forms that route to (or stand for) an IPv4 host. */
function embeddedIPv4(address: ipaddr.IPv6): { form: Embedding; address: ipaddr.IPv4 }[] {
  const p = address.parts;
  switch (address.range()) {
    case 'ipv4Mapped': // ::ffff:a.b.c.d
      return [{ form: 'IPv4-mapped', address: ipv4Of(p[6], p[7]) }];
    case 'rfc6145': // ::ffff:0:a.b.c.d
      return [{ form: 'IPv4-translated', address: ipv4Of(p[6], p[7]) }];
    case 'rfc6052': // 64:ff9b::a.b.c.d; the local-use 64:ff9b:1::/48 embeds as its network chooses and stays refused
      return address.match(NAT64) ? [{ form: 'NAT64', address: ipv4Of(p[6], p[7]) }] : [];
    case '6to4': // 2002:AABB:CCDD::/48
      return [{ form: '6to4', address: ipv4Of(p[1], p[2]) }];
    case 'teredo': // 2001:0:SSSS:SSSS:flags:port:CCCC:CCCC, the client's address inverted
      return [
        { form: 'Teredo server', address: ipv4Of(p[2], p[3]) },
        { form: 'Teredo client', address: ipv4Of(~p[6] & 0xffff, ~p[7] & 0xffff) },
      ];
    case 'unicast': // ::a.b.c.d (deprecated, still routed as IPv4 by some stacks); :: and ::1 have ranges of their own
      return p.slice(0, 6).every((part) => part === 0) ? [{ form: 'IPv4-compatible', address: ipv4Of(p[6], p[7]) }] : [];
    default:
      return [];
  }
}

/**
 * The class of an IP address: public or not, and why. An IPv6 address that embeds an IPv4 address (IPv4-mapped,
 * IPv4-translated, IPv4-compatible, NAT64 64:ff9b::/96, 6to4, both ends of Teredo) is classified by what it embeds;
 * what is no address at all is not public.
 */
export function classifyAddress(text: string): AddressClass {
  if (net.isIP(text) === 0) return { public: false, range: 'invalid' };
  const address = ipaddr.parse(text);
  if (address.kind() === 'ipv4') {
    const range = (address as ipaddr.IPv4).range();
    return { public: range === 'unicast', range };
  }
  const embedded = embeddedIPv4(address as ipaddr.IPv6);
  if (!embedded.length) {
    const range = (address as ipaddr.IPv6).range();
    return { public: range === 'unicast', range };
  }
  const classes = embedded.map((e) => ({ range: e.address.range(), embedded: { form: e.form, address: e.address.toString() } }));
  const deciding = classes.find((c) => c.range !== 'unicast');
  return deciding ? { public: false, ...deciding } : { public: true, ...classes[0] };
}

const RANGE_WORDS: Record<string, string> = {
  invalid: 'no IP address',
  linkLocal: 'a link-local address',
  uniqueLocal: 'a unique-local address',
  carrierGradeNat: 'a carrier-grade NAT address',
  deprecatedSiteLocal: 'a site-local address',
  rfc6052: 'a local-use NAT64 address',
};

/** A reader's words for a refused address: `a loopback address (the 6to4 form of 127.0.0.1)`. */
export function describeAddressClass(c: AddressClass): string {
  const words = RANGE_WORDS[c.range] ?? `${/^[aeiou]/.test(c.range) ? 'an' : 'a'} ${c.range} address`;
  return c.embedded ? `${words} (the ${c.embedded.form} form of ${c.embedded.address})` : words;
}

/** A URL's host name without the brackets of an IPv6 address. */
const hostOf = (hostname: string) => hostname.replace(/^\[(.*)\]$/, '$1');

/** `localhost` and its subdomains, loopback by definition (RFC 6761) whatever a resolver says. */
const isLocalhost = (host: string) => /(^|\.)localhost\.?$/i.test(host);

/** What is wrong with a host by its name alone (a literal address that is not public, `localhost`), or undefined. */
function nameProblem(host: string): string | undefined {
  if (net.isIP(host)) {
    const c = classifyAddress(host);
    return c.public ? undefined : `'${host}' is ${describeAddressClass(c)}`;
  }
  return isLocalhost(host) ? `'${host}' is a loopback name` : undefined;
}

/**
 * Why a URL may not be fetched, or undefined when it may: https only, and a host that is no address the server
 * refuses and resolves to none. `setting` names what allows more (FEDERATION_PRIVATE_NETWORKS, PUSH_PRIVATE_NETWORKS).
 */
export async function outboundProblem(value: string, field: string, setting: string): Promise<string | undefined> {
  const url = new URL(value);
  if (url.protocol !== 'https:') return `${field} must be an https URL (${setting}=true allows http and private addresses).`;
  const host = hostOf(url.hostname);
  const refusal = (what: string) => `${field}: ${what}; the server connects to public addresses only (${setting}=true allows others).`;
  const problem = nameProblem(host);
  if (problem) return refusal(problem);
  if (net.isIP(host)) return undefined;
  let addresses: string[];
  try {
    addresses = (await dns.promises.lookup(host, { all: true, verbatim: true })).map((a) => a.address);
  } catch {
    return `${field}: the host '${host}' cannot be resolved.`;
  }
  for (const address of addresses) {
    const c = classifyAddress(address);
    if (!c.public) return refusal(`'${host}' resolves to ${address}, ${describeAddressClass(c)}`);
  }
  return undefined;
}

const refused = (message: string) => Object.assign(new Error(message), { code: 'EPRIVATEADDRESS' });

/** A DNS lookup that fails for names resolving to an address that is not public, so no connection to it starts. */
export const publicLookup: net.LookupFunction = (hostname, options, callback) => {
  dns.lookup(hostname, { ...options, all: true }, (err, addresses) => {
    if (err) return (callback as (e: Error | null) => void)(err);
    const list = addresses as dns.LookupAddress[];
    const blocked = list.find((a) => !classifyAddress(a.address).public);
    if (blocked || list.length === 0) {
      const why = blocked ? `${blocked.address}, ${describeAddressClass(classifyAddress(blocked.address))}` : 'nothing';
      return (callback as (e: Error | null) => void)(refused(`${hostname} resolves to ${why}: not a public address`));
    }
    if ((options as dns.LookupOptions).all) return (callback as (e: null, a: dns.LookupAddress[]) => void)(null, list);
    return (callback as (e: null, a: string, f: number) => void)(null, list[0].address, list[0].family);
  });
};

/** Why the server may not connect to a host by its name alone, as the error a connection fails with. */
function hostRefusal(hostname: string): Error | undefined {
  const problem = nameProblem(hostOf(hostname));
  return problem ? refused(`${problem}: not a public address`) : undefined;
}

type ConnectCallback = (err: Error | null, stream: Duplex) => void;

/** A connection, or the callback told at once why not (literal addresses are connected to without a lookup). */
function connectUnlessRefused(options: http.ClientRequestArgs, callback: ConnectCallback | undefined, connect: () => Duplex | null | undefined) {
  const refusal = hostRefusal(String(options.host ?? options.hostname ?? ''));
  if (!refusal) return connect();
  callback?.(refusal, undefined as unknown as Duplex);
  return undefined;
}

/**
 * Agents that connect to public addresses only: names through {@link publicLookup}, literal addresses checked as
 * each connection is made, whatever URL (or redirect) led there.
 */
class PublicHttpAgent extends http.Agent {
  override createConnection(options: http.ClientRequestArgs, callback?: ConnectCallback) {
    return connectUnlessRefused(options, callback, () => super.createConnection(options, callback));
  }
}

class PublicHttpsAgent extends https.Agent {
  override createConnection(options: https.RequestOptions, callback?: ConnectCallback) {
    return connectUnlessRefused(options, callback, () => super.createConnection(options, callback));
  }
}

const agents = {
  'http:': new PublicHttpAgent({ lookup: publicLookup, keepAlive: true }),
  'https:': new PublicHttpsAgent({ lookup: publicLookup, keepAlive: true }),
};

/**
 * The agent for fetching a URL on users' behalf, or an error at once when the URL itself names an address that is
 * not public.
 */
export function publicAgentFor(value: string): http.Agent | https.Agent | Error {
  const url = new URL(value);
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return new Error(`${url.protocol} is not fetched`);
  return hostRefusal(url.hostname) ?? agents[url.protocol];
}
