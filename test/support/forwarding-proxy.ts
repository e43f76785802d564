import http from 'node:http';
import net from 'node:net';

/**
 * Clients on other addresses and a reverse proxy in front of a test server, all on loopback: Linux answers on every
 * address of 127.0.0.0/8, so a client bound to 127.0.0.2 is another address than one bound to 127.0.0.3.
 */

export interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** One request on a connection of its own, sent from `from` (a loopback address). */
export function requestFrom(
  from: string,
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: options.method ?? 'GET', headers: options.headers, localAddress: from, agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end(options.body);
  });
}

/** A form POST to the token endpoint from `from`, as `tokenRequest` sends it. */
export function tokenRequestFrom(from: string, url: string, form: Record<string, string>, headers: Record<string, string> = {}): Promise<Answer> {
  return requestFrom(from, `${url}/oidc/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams(form).toString(),
  });
}

export interface ForwardingProxy {
  url: string;
  close(): Promise<void>;
}

/**
 * A reverse proxy as nginx is usually set up: each request goes to `target` on a connection of its own (from
 * `localAddress`), with the client's address appended to `X-Forwarded-For` (`$proxy_add_x_forwarded_for`),
 * `X-Forwarded-Proto` and `X-Forwarded-Host` set to what the proxy is reached at (`proto`, `host`). The body streams
 * through both ways.
 */
export async function startForwardingProxy(
  target: string,
  options: { localAddress?: string; proto?: string; host?: string } = {},
): Promise<ForwardingProxy> {
  const proxy = http.createServer((req, res) => {
    const forwardedFor = [req.headers['x-forwarded-for'], req.socket.remoteAddress].filter(Boolean).join(', ');
    const headers = {
      ...req.headers,
      'x-forwarded-for': forwardedFor,
      'x-forwarded-proto': options.proto ?? 'http',
      'x-forwarded-host': options.host ?? req.headers.host ?? '',
    };
    const upstream = http.request(`${target}${req.url}`, { method: req.method, headers, localAddress: options.localAddress, agent: false }, (answer) => {
      res.writeHead(answer.statusCode!, answer.headers);
      answer.pipe(res);
    });
    upstream.on('error', () => res.destroy());
    // The client went before its answer was complete: so does the request upstream.
    res.on('close', () => {
      if (!res.writableFinished) upstream.destroy();
    });
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(proxy.address() as net.AddressInfo).port}`,
    async close() {
      proxy.closeAllConnections();
      await new Promise((resolve) => proxy.close(resolve));
    },
  };
}
