import { createRequire } from 'node:module';
import path from 'node:path';

/**
 * How to start the worker thread whose entry is `name` beside the calling module `dir`: compiled JavaScript in
 * dist/, or TypeScript from the sources (tests, `npm run dev`), which needs the same loader as the process.
 */
export function workerScript(dir: string, name: string, callerFile: string): { filename: string; execArgv: string[] } {
  const source = callerFile.endsWith('.ts');
  if (source) {
    // The loader's native addon (@swc/core), loaded by worker threads alone, is unloaded when the last of them
    // exits, and loading it again in the next thread crashes the process. This thread keeps it loaded.
    createRequire(callerFile)('@swc/core');
  }
  return { filename: path.join(dir, `${name}${source ? '.ts' : '.js'}`), execArgv: source ? ['-r', '@swc-node/register'] : [] };
}
