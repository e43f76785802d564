import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import type { DataSource } from 'typeorm';
import { PipelinedStatements } from './write-batch';

/**
 * Named (prepared) statements of the `pg` driver for the hot statements: a statement sent with a name is parsed and
 * planned once per connection, and each later run sends only its parameters (Bind, Execute).
 *
 * The name of a text is the same in the whole process (`statementName`); each client adds this process's token and its
 * own number to it (`withOwnStatementNames`), so that names cannot collide where several connections share one
 * session: on the embedded database every connection (of this process, or of another one using the same database)
 * is served by its one PGlite session, in which a statement prepared by one connection exists for all, and a second
 * Parse of the same name would fail. On a PostgreSQL server each connection has its own session, and the suffix
 * changes nothing.
 *
 * Only statements whose texts are few (fixed per kind of request) are named: every name stays prepared in its
 * session as long as the connection lives.
 */
const names = new Map<string, string>();

/** Whether each data source sends its hot statements named (`createDataSource`: unless its URL turns them off). */
export const namedStatementsOn = new WeakMap<DataSource, boolean>();

/** Whether the hot statements go as named statements on `dataSource`. */
export function namedStatements(dataSource: DataSource): boolean {
  return namedStatementsOn.get(dataSource) ?? false;
}

/** The process-wide name of the statement `text`. */
export function statementName(text: string): string {
  let name = names.get(text);
  if (name === undefined) {
    name = `ap${names.size + 1}`;
    names.set(text, name);
  }
  return name;
}

/** This process, in the names of its statements: several processes may use one embedded database (tests, tools). */
const PROCESS = randomBytes(4).toString('hex');
let clients = 0;

type QueryConfigLike = { name?: unknown };

/**
 * `Base` (a `pg` Client class) whose named statements carry this process's token and the number of the client that
 * sends them. With `deallocateOnEnd` (the embedded database, whose one session outlives its connections), a client
 * that ends takes its statements out of the session first.
 */
export function withOwnStatementNames(Base: typeof Client, deallocateOnEnd: boolean): typeof Client {
  return class OwnStatementNamesClient extends Base {
    private readonly statementSuffix = `_${PROCESS}_${++clients}`;

    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the driver's callback or promise form
    end(callback?: (err: Error) => void): any {
      const prepared = Object.keys((this as unknown as { connection: { parsedStatements: Record<string, string> } }).connection.parsedStatements);
      if (!deallocateOnEnd || !prepared.length) return callback ? super.end(callback) : super.end();
      // One after the other: the driver sends one statement at a time, and queueing several is deprecated in pg 9.
      const forget = prepared.reduce<Promise<unknown>>((previous, name) => previous.then(() => super.query(`DEALLOCATE "${name}"`).catch(() => undefined)), Promise.resolve());
      const ended = forget.then(() => super.end());
      if (!callback) return ended;
      ended.then(() => (callback as (err?: Error) => void)(), callback);
    }

    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the driver's overloads, passed through
    query(...args: any[]): any {
      const config = args[0] as QueryConfigLike | undefined;
      if (config instanceof PipelinedStatements) config.statementSuffix = this.statementSuffix;
      if (config && typeof config === 'object' && typeof config.name === 'string') {
        args[0] = { ...config, name: `${config.name}${this.statementSuffix}` };
      }
      // eslint-disable-next-line @typescript-eslint/no-explicit-any
      return (super.query as (...a: any[]) => any)(...args);
    }
  } as unknown as typeof Client;
}
