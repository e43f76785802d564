import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { RunningServer } from '../../src/server';
import { CookieJar, consoleAuthorizationUrl, openLoginPage, userLogin, userToken } from '../support/identity';
import { newOrganization } from '../support/management';
import { ROOT, killAll, startServerProcess, stopServerProcess } from '../support/server-process';
import { TestServer, startTestServer } from '../support/server';

/**
 * `npm run owner:reset-password`: an organization owner who lost the password gets a new one-time password from the
 * operator, on the database of DATABASE_URL (the server may run) or on the embedded database of a stopped server.
 */
const databaseUrl = () => inject('databaseUrl');

let server: TestServer;
const dirs: string[] = [];
beforeAll(async () => {
  server = await startTestServer(databaseUrl());
});
afterAll(async () => {
  killAll();
  await server?.close();
  for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
});

/** Runs the command as `npm run owner:reset-password -- ...args` does, with `env` (DATABASE_URL or DATA_DIR). */
function resetPassword(env: NodeJS.ProcessEnv, ...args: string[]): Promise<{ code: number | null; output: string; password?: string }> {
  const childEnv: NodeJS.ProcessEnv = { ...process.env, NODE_ENV: 'production', ...env };
  if (!env.DATABASE_URL) delete childEnv.DATABASE_URL;
  const child = spawn(process.execPath, ['-r', '@swc-node/register', 'src/management/reset-password-cli.ts', ...args], { cwd: ROOT, env: childEnv, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  return new Promise((resolve) =>
    child.once('close', (code) => resolve({ code, output, password: /^New one-time password for \S+: (\S+)$/m.exec(output)?.[1] })),
  );
}

type Server = Pick<RunningServer, 'url' | 'services'>;

/** Whether the identity service's session in `cookies` still logs the console in without the login page. */
async function sessionResumes(target: Server, cookies: string): Promise<boolean> {
  const redirectUri = target.services.identity.clients[0].redirect_uris[0];
  const authorize = consoleAuthorizationUrl(target);
  const jar = new CookieJar(cookies);
  let url = authorize.toString();
  for (let hops = 0; hops < 10; hops++) {
    const res = await fetch(url, { redirect: 'manual', headers: { cookie: jar.header() } });
    jar.take(res);
    if (res.status === 200) {
      expect(await res.text()).toContain('name="password"');
      return false;
    }
    expect(res.status).toBeGreaterThanOrEqual(300);
    url = new URL(res.headers.get('location')!, url).toString();
    if (url.startsWith(redirectUri)) return new URL(url).searchParams.has('code');
  }
  throw new Error('authorization flow: too many redirects');
}

describe('on the database of DATABASE_URL, while the server runs', () => {
  it('lists the owners of organizations when no email is given', async () => {
    const name = `owned-${randomBytes(4).toString('hex')}`;
    const { user } = await newOrganization(server, name);
    const listed = await resetPassword({ DATABASE_URL: databaseUrl() });
    expect(listed.code).toBe(0);
    expect(listed.output).toMatch(new RegExp(`^  ${user.email} +organization "${name}"$`, 'm'));
    expect(listed.password).toBeUndefined();
  });

  it('gives the account a one-time password that must be changed; the old password, sessions and tokens end', async () => {
    const { user, owner, organization } = await newOrganization(server);
    const before = await userLogin(server, user.email, user.password);
    expect((await owner.call('GET', `/organizations/${organization.id}`)).status).toBe(200);
    expect(await sessionResumes(server, before.cookies)).toBe(true);

    // The email as the owner types it: case and spaces do not matter, as at the login page.
    const reset = await resetPassword({ DATABASE_URL: databaseUrl() }, ` ${user.email.toUpperCase()} `);
    expect(reset.code).toBe(0);
    expect(reset.output).toContain(`New one-time password for ${user.email}: `);
    expect(reset.password).toMatch(/^[\w-]{43}$/);

    await expect(userToken(server, user.email, user.password)).rejects.toThrow(/login refused: 401/);
    expect((await owner.call('GET', `/organizations/${organization.id}`)).status).toBe(401);
    expect(await sessionResumes(server, before.cookies)).toBe(false);

    await expect(userToken(server, user.email, reset.password!)).rejects.toThrow(/must choose a new password/);
    const chosen = randomBytes(16).toString('base64url');
    // Tokens count from the second after the reset on (they carry their issue time in whole seconds).
    const [{ revoked }] = await server.dataSource.query('SELECT tokens_revoked_at AS revoked FROM accounts WHERE id = $1', [user.id]);
    while (Date.now() < Math.floor(revoked.getTime() / 1000) * 1000 + 1000) await new Promise((resolve) => setTimeout(resolve, 50));
    const after = await userToken(server, user.email, reset.password!, { newPassword: chosen });
    const res = await fetch(`${server.url}/api/v1/organizations/${organization.id}`, { headers: { authorization: `Bearer ${after}` } });
    expect(res.status).toBe(200);
    // The one-time password is spent; the chosen one logs in without a change asked.
    await expect(userToken(server, user.email, reset.password!)).rejects.toThrow(/login refused: 401/);
    expect(await userToken(server, user.email, chosen)).toBeTruthy();
  });

  it('ends a login that waits for the new password of the former one-time password', async () => {
    const { user } = await newOrganization(server);
    const first = await resetPassword({ DATABASE_URL: databaseUrl() }, user.email);
    // Someone logs in with that one-time password and is asked for a new one; meanwhile the operator resets again.
    const { page, cookies } = await openLoginPage(server);
    const jar = new CookieJar(cookies);
    const post = async (url: string, form: Record<string, string>) => {
      const res = await fetch(url, { method: 'POST', redirect: 'manual', headers: { cookie: jar.header(), 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(form).toString() });
      jar.take(res);
      return res;
    };
    const asked = await post(`${page}/login`, { email: user.email, password: first.password! });
    expect(asked.status).toBe(200);
    expect(await asked.text()).toContain('name="newPassword"');

    const second = await resetPassword({ DATABASE_URL: databaseUrl() }, user.email);
    expect(second.code).toBe(0);
    const refused = await post(`${page}/password`, { newPassword: randomBytes(16).toString('base64url') });
    expect(refused.status).toBe(400);
    expect(await refused.text()).toContain('Login expired');
    await expect(userToken(server, user.email, second.password!)).rejects.toThrow(/must choose a new password/);
  });

  it('refuses an email no account has, with a message and a non-zero exit, and changes nothing', async () => {
    const { user } = await newOrganization(server);
    const refused = await resetPassword({ DATABASE_URL: databaseUrl() }, `nobody-${randomBytes(4).toString('hex')}@example.com`);
    expect(refused.code).toBe(1);
    expect(refused.output).toMatch(/^No identity account has the email 'nobody-[0-9a-f]+@example\.com'\. Run the command without an email to list the organization owners\.$/m);
    expect(refused.password).toBeUndefined();
    expect(await userToken(server, user.email, user.password)).toBeTruthy();
  });
});

describe('on the embedded database in DATA_DIR', () => {
  const tempDir = () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'asset-platform-pw-'));
    dirs.push(dir);
    return dir;
  };

  // Two starts of a server process, each with a fresh embedded database.
  it('is refused while a server runs on the directory, and resets the owner once it has stopped', { timeout: 240_000 }, async () => {
    const dataDir = tempDir();
    const env = (url: string) => ({ PUBLIC_URL: url });
    const first = await startServerProcess(dataDir, { env });
    const bootstrapPassword = first.lines().find((l) => l.oneTimePassword)?.oneTimePassword as string;
    expect(bootstrapPassword).toBeTruthy();
    try {
      const refused = await resetPassword({ DATA_DIR: dataDir }, 'admin@localhost');
      expect(refused.code).toBe(1);
      expect(refused.output).toContain(`DATA_DIR ${dataDir} is in use by another server (pid ${first.child.pid}`);
      expect(refused.output).toContain('Stop the server first');
      expect(refused.password).toBeUndefined();
    } finally {
      expect(await stopServerProcess(first, 'SIGTERM')).toBe(0);
    }

    const listed = await resetPassword({ DATA_DIR: dataDir });
    expect(listed.code).toBe(0);
    expect(listed.output).toMatch(/^ {2}admin@localhost +organization "default"$/m);
    const reset = await resetPassword({ DATA_DIR: dataDir }, 'admin@localhost');
    expect(reset.code).toBe(0);
    expect(reset.password).toBeTruthy();

    const again = await startServerProcess(dataDir, { env });
    try {
      // The server as the login flow sees it: its console client, on the URL it was started with.
      const target = { url: again.url, services: { identity: { clients: [{ client_id: 'console', redirect_uris: [`${again.url}/console/oauth2-redirect.html`] }] } } } as unknown as Server;
      await expect(userToken(target, 'admin@localhost', bootstrapPassword)).rejects.toThrow(/login refused: 401/);
      await expect(userToken(target, 'admin@localhost', reset.password!)).rejects.toThrow(/must choose a new password/);
      expect(await userToken(target, 'admin@localhost', reset.password!, { newPassword: randomBytes(16).toString('base64url') })).toBeTruthy();
    } finally {
      expect(await stopServerProcess(again, 'SIGTERM')).toBe(0);
    }
  });

  it('says so when DATA_DIR holds no database, and creates none', async () => {
    const dataDir = path.join(tempDir(), 'absent');
    const refused = await resetPassword({ DATA_DIR: dataDir }, 'admin@localhost');
    expect(refused.code).toBe(1);
    expect(refused.output).toContain(`DATA_DIR ${dataDir} holds no database: start the server once to create it, or set DATABASE_URL to the server's database.`);
    expect(fs.existsSync(dataDir)).toBe(false);
  });
});
