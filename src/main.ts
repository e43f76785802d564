import { answerCommandLine } from './cli';

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
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded only when the server is to start
  (require('./server') as typeof import('./server')).runServer();
}
