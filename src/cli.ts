import { PACKAGE } from './common/package-info';

/** What the command line asks for besides starting the server: text to print and the exit code. */
export interface CommandLineAnswer {
  stdout?: string;
  stderr?: string;
  exitCode: number;
}

const USAGE = `Usage: node dist/src/main.js [--help | --version]

Starts ${PACKAGE.name} ${PACKAGE.version}, an Asset Administration Shell server (AAS V3.0, HTTP API V3.0.4).
Every setting comes from the environment; the main ones:

  PORT, HOST            where it listens (default 8080 on 0.0.0.0)
  PUBLIC_URL            the base URL clients use (default http://localhost:{PORT})
  DATABASE_URL          a PostgreSQL server's database (create it first); unset: the embedded PostgreSQL with
                        its data in DATA_DIR (default ./data)
  LOG_LEVEL             fatal, error, warn, info (default), debug, trace or silent
  FILE_STORE, S3_*      where file contents live (postgres, the default, or s3)
  MQTT_URL              the MQTT broker change events are published to

The full list is in docs/configuration.md. Once started, GET / names the consoles and APIs.

Options:
  -h, --help            print this and exit
  -v, --version         print the version and exit
`;

/**
 * The command line's answer, or undefined when it asks to start the server (no arguments). Decided before the
 * configuration is read: `--help` works whatever the environment holds, and touches no database.
 */
export function answerCommandLine(args: readonly string[]): CommandLineAnswer | undefined {
  if (!args.length) return undefined;
  if (args.length === 1 && (args[0] === '--help' || args[0] === '-h')) return { stdout: USAGE, exitCode: 0 };
  if (args.length === 1 && (args[0] === '--version' || args[0] === '-v')) return { stdout: `${PACKAGE.version}\n`, exitCode: 0 };
  return { stderr: `unknown argument: ${args.join(' ')} (settings come from the environment; --help lists them)\n`, exitCode: 2 };
}
