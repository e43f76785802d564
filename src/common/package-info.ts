import fs from 'node:fs';
import path from 'node:path';

/** The nearest folder above `from` with a package.json: the repository root, from src/ and dist/ alike (and in the image). */
export function packageRoot(from: string = __dirname): string {
  let dir = from;
  while (!fs.existsSync(path.join(dir, 'package.json'))) {
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error(`no package.json above ${from}`);
    dir = parent;
  }
  return dir;
}

/** The name and version of this server, as its package.json says (`--version`, the front door, the start banner). */
export const PACKAGE: { name: string; version: string } = (() => {
  const { name, version } = JSON.parse(fs.readFileSync(path.join(packageRoot(), 'package.json'), 'utf8')) as { name: string; version: string };
  return { name, version };
})();
