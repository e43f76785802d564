import { answerCommandLine } from './cli';
import { loadConfig } from './config';
import { EmbeddedDatabase, embeddedConnections, startEmbeddedDatabase } from './db/embedded';

/**
 * `node dist/src/main.js`: answers --help and --version at once, before the server's modules are loaded (which takes
 * seconds) and before any setting is read; else starts the server (src/server.ts).
 */
const answer = answerCommandLine(process.argv.slice(2));
if (answer) {
  if (answer.stdout) process.stdout.write(answer.stdout);
  if (answer.stderr) process.stderr.write(answer.stderr);
  process.exitCode = answer.exitCode;
} else {
  const early = startEarly();
  void early.threadStarted.then(() => {
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded only when the server is to start
    (require('./server') as typeof import('./server')).runServer(early.database);
  });
}

/**
 * Without DATABASE_URL, the embedded database starts in its own thread while the server's modules load on this one
 * (each takes a second or two): the modules are loaded once that thread runs, or at once when there is nothing to
 * start early. A setting that cannot be read, or a database that fails to start, is reported by `runServer` as it
 * would be without this.
 */
function startEarly(): { database?: Promise<EmbeddedDatabase>; threadStarted: Promise<void> } {
  let config;
  try {
    config = loadConfig();
  } catch {
    return { threadStarted: Promise.resolve() };
  }
  if (config.databaseUrl) return { threadStarted: Promise.resolve() };
  let started!: () => void;
  const threadStarted = new Promise<void>((resolve) => (started = resolve));
  const database = startEmbeddedDatabase(config.dataDir, embeddedConnections(config), started);
  // A start that fails before its thread runs lets the server's start go on, to report it; the rejection is
  // handled there, when `start` awaits it.
  database.then(undefined, () => started());
  return { database, threadStarted };
}
