import 'reflect-metadata';
import fs from 'node:fs';
import path from 'node:path';
import { loadConfig } from '../config';
import { createDataSource } from '../db/data-source';
import { DataDirInUseError } from '../db/data-dir-lock';
import { startEmbeddedDatabase } from '../db/embedded';
import { AccountService } from './accounts/account.service';

/**
 * `npm run owner:reset-password -- <email>`: a new one-time password for an identity account of the built-in
 * identity service (an organization owner who lost theirs), printed once; it must be changed at the next login,
 * and the account's sessions and tokens end. Without an email: the organization owners to choose from.
 * On DATABASE_URL (any time), or on the embedded database in DATA_DIR (only while no server runs on it: the CLI
 * takes the directory's lock as the server does).
 */
async function main(email: string | undefined): Promise<void> {
  const config = loadConfig();
  if (!config.databaseUrl && !fs.existsSync(path.join(config.dataDir, 'PG_VERSION'))) {
    throw new Error(`DATA_DIR ${config.dataDir} holds no database: start the server once to create it, or set DATABASE_URL to the server's database.`);
  }
  const embedded = config.databaseUrl ? undefined : await openEmbedded(config.dataDir);
  try {
    const dataSource = createDataSource(config.databaseUrl ?? embedded!.url, 1);
    await dataSource.initialize();
    try {
      const [{ migrated }] = (await dataSource.query("SELECT to_regclass('accounts') IS NOT NULL AS migrated")) as { migrated: boolean }[];
      if (!migrated) throw new Error('This database has no accounts: start the server on it once (it creates them), then try again.');
      const accounts = new AccountService(dataSource, config);
      if (!email) {
        const owners = await accounts.organizationOwners();
        if (!owners.length) throw new Error('No organization has an owner who logs in with a password.');
        const width = Math.max(...owners.map((o) => o.email.length));
        process.stdout.write(
          'Organization owners; name one to give it a new one-time password: npm run owner:reset-password -- <email>\n' +
            owners.map((o) => `  ${o.email.padEnd(width)}  organization "${o.organization}"\n`).join(''),
        );
        return;
      }
      const reset = await accounts.resetPassword(email);
      if (!reset) throw new Error(`No identity account has the email '${email}'. Run the command without an email to list the organization owners.`);
      process.stdout.write(
        `New one-time password for ${reset.account.email}: ${reset.oneTimePassword}\n` +
          `Shown this once. Log in at ${config.manageUrl}/console with it; you will be asked to choose your own. ` +
          'The sessions and tokens of this account issued before now no longer count.\n',
      );
    } finally {
      await dataSource.destroy();
    }
  } finally {
    // Also when it failed: the lock is released, not left for the next start to find stale.
    await embedded?.stop();
  }
}

/** The embedded database, taken from a stopped server: a running one holds the directory, and the command says what to do. */
async function openEmbedded(dataDir: string) {
  try {
    return await startEmbeddedDatabase(dataDir, 2);
  } catch (err) {
    if (!(err instanceof DataDirInUseError)) throw err;
    throw new Error(`${err.message}\nStop the server first (the embedded database serves one process at a time), then run this command again; with DATABASE_URL it runs beside the server.`);
  }
}

main(process.argv[2]).catch((err: Error) => {
  process.stderr.write(`${err.message}\n`);
  process.exit(1);
});
