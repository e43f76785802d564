import net from 'node:net';

export interface DatabaseRelay {
  /** Starts (or restarts, on the same port) relaying; resolves with the database URL that goes through the relay. */
  start(): Promise<string>;
  /** Cuts every relayed connection and refuses new ones: the database going away. */
  stop(): Promise<void>;
  /**
   * Stops forwarding, in both directions, on every connection, old and new, but closes nothing: a network
   * partition, where the database neither answers nor says it is gone. What was sent waits in the relay.
   */
  silence(): void;
  /**
   * Stops forwarding what the server sends (on every connection, old and new), while the database's answers still
   * come back: a partition that begins one way, with what was under way still answered. What was sent waits.
   */
  silenceToDatabase(): void;
  /** Forwards again what waited and what comes: the partition heals. */
  resume(): void;
}

/**
 * A TCP relay to the test database: stopping it is the database going away (connections cut, new ones refused),
 * starting it again is the database coming back; silencing it is a partition (nothing goes through, nothing is
 * closed). The embedded database listens on a unix socket (`?host=/dir`), a server on TCP; either way the relay
 * listens on loopback TCP.
 */
export function databaseRelay(target: string): DatabaseRelay {
  const url = new URL(target);
  const socketDir = url.searchParams.get('host');
  const connect = () =>
    socketDir?.startsWith('/') ? net.connect(`${socketDir}/.s.PGSQL.${url.port || 5432}`) : net.connect(Number(url.port || 5432), url.hostname);
  const open = new Set<net.Socket>();
  const pairs = new Set<[net.Socket, net.Socket]>();
  let listener: net.Server | undefined;
  let port = 0;
  let silent: 'no' | 'to-database' | 'both' = 'no';
  const forward = ([client, db]: [net.Socket, net.Socket]) => {
    client.pipe(db);
    db.pipe(client);
  };
  const holdToDatabase = ([client, db]: [net.Socket, net.Socket]) => {
    client.unpipe(db);
    client.pause();
  };
  const hold = ([client, db]: [net.Socket, net.Socket]) => {
    holdToDatabase([client, db]);
    db.unpipe(client);
    db.pause();
  };
  return {
    async start() {
      listener = net.createServer((client) => {
        const db = connect();
        const pair: [net.Socket, net.Socket] = [client, db];
        open.add(client).add(db);
        pairs.add(pair);
        if (silent === 'both') hold(pair);
        else {
          forward(pair);
          if (silent === 'to-database') holdToDatabase(pair);
        }
        const end = () => {
          client.destroy();
          db.destroy();
          open.delete(client);
          open.delete(db);
          pairs.delete(pair);
        };
        client.on('error', end).on('close', end);
        db.on('error', end).on('close', end);
      });
      await new Promise<void>((resolve) => listener!.listen(port, '127.0.0.1', resolve));
      port = (listener.address() as net.AddressInfo).port;
      const relayed = new URL(target);
      relayed.hostname = '127.0.0.1';
      relayed.port = String(port);
      relayed.searchParams.delete('host');
      return relayed.toString();
    },
    async stop() {
      const closed = new Promise((resolve) => listener!.close(resolve));
      for (const socket of open) socket.destroy();
      await closed;
    },
    silence() {
      silent = 'both';
      for (const pair of pairs) hold(pair);
    },
    silenceToDatabase() {
      silent = 'to-database';
      for (const pair of pairs) holdToDatabase(pair);
    },
    resume() {
      silent = 'no';
      for (const [client, db] of pairs) {
        // Piped again only where it was held: a second pipe() would deliver every chunk twice.
        client.unpipe(db);
        db.unpipe(client);
        forward([client, db]);
      }
    },
  };
}
