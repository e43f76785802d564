import { readFileSync } from 'node:fs';
import net from 'node:net';

/**
 * A TCP port free on loopback right now, for a server that must know its port before it starts. Taken below the
 * kernel's ephemeral range (`ip_local_port_range`): a port of that range, once closed here, can be taken by any
 * outgoing connection of the machine (to the database, the broker, another test's server) before the server that
 * asked for it listens on it, and its start then fails with EADDRINUSE.
 */
export async function freePort(): Promise<number> {
  const [low] = ephemeralRange();
  const first = Math.max(1024, low - 12_000);
  for (let attempt = 0; attempt < 50; attempt++) {
    const port = first + Math.floor(Math.random() * (low - first));
    if (await listenable(port)) return port;
  }
  throw new Error(`no free port found between ${first} and ${low}`);
}

function ephemeralRange(): [number, number] {
  try {
    const [low, high] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/).map(Number);
    if (low > 1024 && high >= low) return [low, high];
  } catch {
    // not Linux: the IANA dynamic range, which other systems use
  }
  return [49152, 65535];
}

function listenable(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}
