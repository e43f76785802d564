import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

/**
 * `npm run docs:screenshots`: refreshes the admin console's screenshots in docs/admin-console/. It runs the console's
 * browser tests (test/e2e/admin-console/), which save each screen they check when ADMIN_SCREENSHOTS names a folder;
 * the screens are the ones the tests drive, with their data. Uses DATABASE_URL if set, else an embedded database.
 */
const folder = path.resolve(__dirname, '../docs/admin-console');
fs.rmSync(folder, { recursive: true, force: true });
const run = spawnSync('npx', ['vitest', 'run', 'test/e2e/admin-console'], {
  stdio: 'inherit',
  env: { ...process.env, ADMIN_SCREENSHOTS: folder },
  cwd: path.resolve(__dirname, '..'),
});
const saved = fs.existsSync(folder) ? fs.readdirSync(folder).filter((f) => f.endsWith('.png')) : [];
process.stderr.write(`${saved.length} screenshots in ${path.relative(process.cwd(), folder)}\n`);
process.exit(run.status ?? 1);
