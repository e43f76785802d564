import { withClient } from './pg-client';

/** A node of a Citus cluster as the coordinator lists it (`pg_dist_node`). */
export interface CitusNode {
  host: string;
  port: number;
  coordinator: boolean;
}

/** The active nodes of the Citus cluster whose coordinator holds the database of `url`; none when it is no Citus database. */
export function citusNodes(url: string): Promise<CitusNode[]> {
  return withClient(url, async (client) => {
    if (!(await client.query(`SELECT 1 FROM pg_extension WHERE extname = 'citus'`)).rows.length) return [];
    const { rows } = await client.query<CitusNode>('SELECT nodename AS host, nodeport AS port, groupid = 0 AS coordinator FROM pg_dist_node WHERE isactive ORDER BY groupid');
    return rows;
  });
}

/** `url` with another node's host and port (the credentials and options of `url`), and another database. */
function at(url: string, node: CitusNode | undefined, database: string): string {
  const other = new URL(url);
  if (node) Object.assign(other, { hostname: node.host, port: String(node.port) });
  other.pathname = `/${database}`;
  return other.toString();
}

/**
 * A new, empty database `name` on a Citus cluster, made as docs/scale-out.md sets one up: on the coordinator of `url`
 * and on each of its workers (`nodes`, from `citusNodes`), with the extension in each, and the nodes registered on
 * the coordinator. `drop` drops it on every node. The databases are made on the connection to `url`'s database
 * (the same name on every node, as the setting up makes it). With `extension: false`, the databases are plain ones
 * until `addCitus` (a database that gains Citus later).
 */
export async function freshCitusDatabase(url: string, nodes: CitusNode[], name: string, options: { extension?: boolean } = {}): Promise<FreshCitusDatabase> {
  const home = decodeURIComponent(new URL(url).pathname.slice(1)) || 'postgres';
  const workers = nodes.filter((node) => !node.coordinator);
  const coordinator = nodes.find((node) => node.coordinator);
  const made: (CitusNode | undefined)[] = [];
  const drop = async () => {
    for (const node of [...made].reverse()) await withClient(at(url, node, home), (client) => client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
  };
  const addCitus = async () => {
    for (const node of [...workers, undefined]) await withClient(at(url, node, name), (client) => client.query('CREATE EXTENSION citus'));
    await withClient(at(url, undefined, name), async (client) => {
      if (coordinator) await client.query('SELECT citus_set_coordinator_host($1, $2)', [coordinator.host, coordinator.port]);
      for (const node of workers) await client.query('SELECT citus_add_node($1, $2)', [node.host, node.port]);
    });
  };
  try {
    for (const node of [undefined, ...workers]) {
      await withClient(at(url, node, home), (client) => client.query(`CREATE DATABASE ${name}`));
      made.push(node);
    }
    if (options.extension !== false) await addCitus();
  } catch (err) {
    await drop().catch(() => undefined);
    throw err;
  }
  return { url: at(url, undefined, name), drop, addCitus };
}

export interface FreshCitusDatabase {
  /** The database on the coordinator. */
  url: string;
  drop(): Promise<void>;
  /** The extension on every node and the nodes registered (made already unless `extension: false`). */
  addCitus(): Promise<void>;
}
