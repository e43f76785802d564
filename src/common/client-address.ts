import type { IncomingMessage } from 'node:http';
import proxyaddr from 'proxy-addr';
import type { TrustProxy } from '../config';

/** Addresses whose trust is remembered at most (the proxies, and the clients behind them seen lately). */
const MAX_REMEMBERED = 10_000;

/**
 * proxy-addr's match of an address against the trusted ranges parses it each time (a few microseconds); a request
 * asks about the same two or three addresses several times, and a server sees the same addresses again and again.
 */
function remembered(matches: (address: string, hop: number) => boolean): (address: string) => boolean {
  const known = new Map<string, boolean>();
  return (address) => {
    let trusted = known.get(address);
    if (trusted === undefined) {
      trusted = matches(address, 0);
      if (known.size >= MAX_REMEMBERED) known.clear();
      known.set(address, trusted);
    }
    return trusted;
  };
}

/** The headers a proxy sets about the client's request: believed from trusted proxies only. */
const FORWARDED_HEADERS = ['x-forwarded-for', 'x-forwarded-proto', 'x-forwarded-host'];

/**
 * Who the client of a request is, by `TRUST_PROXY`: the one rule behind the request log, the failure limits of the
 * identity service, the connection cap per client (MAX_CONNECTIONS_PER_CLIENT), and Koa's and oidc-provider's
 * `X-Forwarded-Proto`/`-Host`. Off (the default), the client is the connection's peer and no forwarded header is
 * believed: anyone can send them. With proxies, `X-Forwarded-For` is walked from the right past the trusted proxies
 * (proxy-addr, as Express does); the first address that is not one is the client.
 */
export class ClientAddresses {
  /** Whether forwarded headers may be believed at all (Koa's and oidc-provider's `proxy` setting). */
  readonly trustsProxies: boolean;
  private readonly trust: (address: string, hop: number) => boolean;

  constructor(setting: TrustProxy) {
    this.trustsProxies = setting !== false;
    if (setting === false) this.trust = () => false;
    else if ('hops' in setting) this.trust = (_address, hop) => hop < setting.hops;
    else this.trust = remembered(proxyaddr.compile(setting.addresses));
  }

  /** Whether a connection from `peer` comes from a trusted proxy (which relays other clients' requests). */
  isProxy(peer: string | undefined): boolean {
    return peer !== undefined && this.trust(peer, 0);
  }

  /** The address of the client that sent this request. */
  of(req: IncomingMessage): string {
    const peer = req.socket.remoteAddress;
    if (!peer) return '';
    return this.isProxy(peer) ? proxyaddr(req, this.trust) : peer;
  }

  /**
   * Removes the forwarded headers of a request that no trusted proxy relayed, before anything reads them: Koa and
   * oidc-provider (its issuer's endpoint URLs) would otherwise believe a client's own `X-Forwarded-Proto`/`-Host`.
   */
  dropUntrusted(req: IncomingMessage): void {
    if (this.isProxy(req.socket.remoteAddress)) return;
    for (const name of FORWARDED_HEADERS) delete req.headers[name];
  }
}
