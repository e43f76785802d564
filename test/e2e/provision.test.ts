import { spawn, spawnSync } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { CONSOLE_CLIENT_ID } from '../../src/auth/identity/identity.service';
import { clientCredentialsToken, userLogin } from '../support/identity';
import { b64, json, sampleShell } from '../support/server';
import { ROOT, ServerProcess, killAll, startServerProcess, stopServerProcess } from '../support/server-process';
import { hasTools } from '../support/system-tools';

/**
 * Provisioning by script (docs/management-and-identity.md): docker/provision.sh against the real server process on a fresh embedded
 * database, so the real first start creates the bootstrap client it uses; the first start's one-time password;
 * and docker/compose.yaml, which runs the script once the app is healthy.
 */
const SCRIPT = path.join(ROOT, 'docker/provision.sh');
const COMPOSE = path.join(ROOT, 'docker/compose.yaml');

const dirs: string[] = [];
const tempDir = () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'asset-platform-provision-'));
  dirs.push(dir);
  return dir;
};
afterAll(() => {
  killAll();
  for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
});

interface ScriptRun {
  code: number | null;
  stdout: string;
  stderr: string;
  /** Its KEY=value lines. */
  values: Record<string, string>;
}

/** Runs the script with `env` and PATH only (nothing of this process's environment leaks in). */
function runScript(env: Record<string, string>): Promise<ScriptRun> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', [SCRIPT], { env: { PATH: process.env.PATH, WAIT_SECONDS: '30', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => {
      const values = Object.fromEntries(
        stdout
          .split('\n')
          .filter((line) => /^[A-Z_]+=/.test(line))
          .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
      );
      resolve({ code, stdout, stderr, values });
    });
  });
}

async function graphql(url: string, token: string, query: string, variables: Record<string, unknown> = {}) {
  const res = await fetch(`${url}/graphql`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ query, variables }),
  });
  const body = await json(res);
  expect(body.errors, JSON.stringify(body.errors)).toBeUndefined();
  return body.data;
}

const passwordLines = (proc: ServerProcess) => proc.lines().filter((line) => 'oneTimePassword' in line);

describe.skipIf(!hasTools('curl', 'jq'))('docker/provision.sh against a server on its first start', () => {
  const BOOTSTRAP_CLIENT_ID = randomUUID();
  const BOOTSTRAP_CLIENT_SECRET = randomBytes(32).toString('base64url');
  let server: ServerProcess;
  let env: Record<string, string>;
  let first: ScriptRun;

  beforeAll(async () => {
    server = await startServerProcess(tempDir(), { env: (url) => ({ PUBLIC_URL: url, BOOTSTRAP_CLIENT_ID, BOOTSTRAP_CLIENT_SECRET }) });
    // The script reaches the server by another name than its PUBLIC_URL, as the compose service does (http://app:8080).
    env = { ASSET_URL: server.url.replace('127.0.0.1', 'localhost'), BOOTSTRAP_CLIENT_ID, BOOTSTRAP_CLIENT_SECRET, TENANT: 'plant-1', SERVICE_ACCOUNT: 'line-7' };
  });

  it('creates the tenant, a service account with a secret and the contributor role, and calls the tenant API as it', async () => {
    first = await runScript(env);
    expect(first.code, first.stderr).toBe(0);
    const { TENANT, TENANT_ID, TENANT_URL, AAS_API, TOKEN_URL, CLIENT_ID, CLIENT_SECRET } = first.values;
    expect(TENANT).toBe('plant-1');
    expect(TENANT_URL).toBe(`${server.url}/tenants/plant-1`);
    expect(AAS_API).toBe(`${server.url}/tenants/plant-1/api/v3.0`);
    expect(TOKEN_URL).toBe(`${server.url}/oidc/token`);
    expect(CLIENT_ID).toMatch(/^[0-9a-f-]{36}$/);
    expect(CLIENT_SECRET.length).toBeGreaterThanOrEqual(32);
    // The secret is printed once, on stdout; the script's own call of the tenant API as the new account succeeded.
    expect((first.stdout + first.stderr).split(CLIENT_SECRET).length - 1).toBe(1);
    expect(first.stderr).toContain('tenant API works for service account line-7: POST, GET and DELETE');
    expect(first.stderr).not.toContain(BOOTSTRAP_CLIENT_SECRET);

    // The tenant exists in the bootstrap client's organization.
    const admin = await clientCredentialsToken(server, BOOTSTRAP_CLIENT_ID, BOOTSTRAP_CLIENT_SECRET);
    const { me } = await graphql(server.url, admin, '{ me { organizations { id name } } }');
    const { tenants } = await graphql(server.url, admin, 'query ($org: ID!) { tenants(organizationId: $org) { result { id name url } } }', { org: me.organizations[0].id });
    expect(tenants.result).toContainEqual({ id: TENANT_ID, name: 'plant-1', url: TENANT_URL });

    // The new service account's own token works on the tenant API, and it holds contributor there and nothing else.
    const token = await clientCredentialsToken(server, CLIENT_ID, CLIENT_SECRET);
    const api = `${server.url}/tenants/plant-1/api/v3.0`;
    const auth = { authorization: `Bearer ${token}` };
    const created = await fetch(`${api}/shells`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify(sampleShell('urn:provision:test:1')) });
    expect(created.status).toBe(201);
    const listed = await json(fetch(`${api}/shells`, { headers: auth }));
    expect(listed.result.map((s: { id: string }) => s.id)).toEqual(['urn:provision:test:1']); // the script's own shell is gone
    expect((await fetch(`${api}/shells/${b64('urn:provision:test:1')}`, { headers: auth })).status).toBe(200);
    const roles = await graphql(server.url, token, '{ me { principal { type id } tenants { name roles { role } } } }');
    expect(roles.me.principal).toEqual({ type: 'service-account', id: CLIENT_ID });
    expect(roles.me.tenants).toEqual([{ name: 'plant-1', roles: [{ role: 'contributor' }] }]);
  });

  it('runs again without breaking: it reuses the tenant, the account and its role, and gives a new secret only when asked', async () => {
    const again = await runScript(env);
    expect(again.code, again.stderr).toBe(0);
    expect(again.values).toMatchObject({ TENANT_ID: first.values.TENANT_ID, CLIENT_ID: first.values.CLIENT_ID });
    expect(again.values.CLIENT_SECRET).toBeUndefined();
    expect(again.stderr).toMatch(/tenant plant-1 exists; reusing it[\s\S]*service account line-7 exists[\s\S]*contributor on tenant plant-1 already/);
    await clientCredentialsToken(server, first.values.CLIENT_ID, first.values.CLIENT_SECRET);

    const rotated = await runScript({ ...env, ROTATE_SECRET: '1' });
    expect(rotated.code, rotated.stderr).toBe(0);
    expect(rotated.values.CLIENT_ID).toBe(first.values.CLIENT_ID);
    expect(rotated.values.CLIENT_SECRET).not.toBe(first.values.CLIENT_SECRET);
    expect(rotated.stderr).toContain('tenant API works for service account line-7');
    // Both work: the previous secret for one more day.
    await clientCredentialsToken(server, first.values.CLIENT_ID, rotated.values.CLIENT_SECRET);
    await clientCredentialsToken(server, first.values.CLIENT_ID, first.values.CLIENT_SECRET);

    const admin = await clientCredentialsToken(server, BOOTSTRAP_CLIENT_ID, BOOTSTRAP_CLIENT_SECRET);
    const { me } = await graphql(server.url, admin, '{ me { organizations { id } } }');
    const org = me.organizations[0].id;
    const { serviceAccounts } = await graphql(server.url, admin, 'query ($org: ID!) { serviceAccounts(organizationId: $org) { result { name } } }', { org });
    expect(serviceAccounts.result.filter((a: { name: string }) => a.name === 'line-7')).toHaveLength(1);
    const { tenantRoleAssignments } = await graphql(
      server.url,
      admin,
      'query ($org: ID!, $tenant: ID!) { tenantRoleAssignments(organizationId: $org, tenantId: $tenant) { result { role principalId } } }',
      { org, tenant: first.values.TENANT_ID },
    );
    expect(tenantRoleAssignments.result).toEqual([{ role: 'contributor', principalId: first.values.CLIENT_ID }]);
  });

  it('says clearly what was refused, and exits 1', async () => {
    const wrongSecret = await runScript({ ...env, BOOTSTRAP_CLIENT_SECRET: 'not-the-secret' });
    expect(wrongSecret.code).toBe(1);
    expect(wrongSecret.stderr).toMatch(/ERROR: token request for client \S+ refused \(401\)/);
    expect(wrongSecret.stdout).toBe('');

    const badName = await runScript({ ...env, TENANT: 'Not_A_Label' });
    expect(badName.code).toBe(1);
    expect(badName.stderr).toMatch(/ERROR: GraphQL refused \(HTTP \d+\):\n {2}BAD_REQUEST: name 'Not_A_Label' .*\(at createTenant\)/);
    expect(badName.stdout).toBe('');

    const missing = await runScript({ ASSET_URL: env.ASSET_URL });
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('set BOOTSTRAP_CLIENT_ID');
  });

  it("the documented curl + GraphQL commands work as shown (on another tenant name)", async () => {
    const page = fs.readFileSync(path.join(ROOT, 'docs/management-and-identity.md'), 'utf8');
    expect(page).toContain('## Provisioning by script');
    const section = page.slice(page.indexOf('## Provisioning by script'));
    const block = /```sh\n([\s\S]*?)```/.exec(section)![1];
    expect(block).toContain('URL=http://localhost:8080\n');
    const commands = block.replace('URL=http://localhost:8080\n', `URL=${server.url}\n`).replaceAll('plant-1', 'readme-1');
    const run = spawnSync('bash', ['-c', `set -euo pipefail\n${commands}`], {
      env: { PATH: process.env.PATH, BOOTSTRAP_CLIENT_ID, BOOTSTRAP_CLIENT_SECRET },
      encoding: 'utf8',
    });
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).not.toContain('"errors"');
    expect(run.stdout).toContain('"role":"contributor"');
    // The last answer (GET /shells) follows the POST's on the same line: the first '{' from which the rest parses.
    const out = run.stdout.trim();
    const shells = [...out.matchAll(/\{/g)].map((m) => {
      try {
        return JSON.parse(out.slice(m.index));
      } catch {
        return undefined;
      }
    }).find(Boolean);
    expect(shells.result.map((s: { id: string }) => s.id)).toEqual(['urn:example:aas:1']);
  });

  it("answers the compose file's healthcheck command", () => {
    const compose = parse(fs.readFileSync(COMPOSE, 'utf8'));
    const [, , flag, script] = compose.services.app.healthcheck.test as string[];
    expect(flag).toBe('-e');
    const port = new URL(server.url).port;
    expect(spawnSync(process.execPath, ['-e', script.replace('127.0.0.1:8080', `127.0.0.1:${port}`)]).status).toBe(0);
    expect(spawnSync(process.execPath, ['-e', script.replace('127.0.0.1:8080', '127.0.0.1:1')]).status).toBe(1);
  });
});

describe("the first start's one-time password", () => {
  it('is logged once, in one line, is random, must be changed at the first login, and is not logged again', async () => {
    const dir = tempDir();
    const first = await startServerProcess(dir, { env: (url) => ({ PUBLIC_URL: url }) });
    const lines = passwordLines(first);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ level: 40, login: 'admin@localhost', tenant: 'default' });
    const password = String(lines[0].oneTimePassword);
    expect(password.length).toBeGreaterThanOrEqual(32);
    expect(first.output().split(password).length - 1).toBe(1);
    // Not a fixed default: another first start says another one.
    const other = await startServerProcess(tempDir());
    const otherPassword = String(passwordLines(other)[0]?.oneTimePassword);
    expect(otherPassword.length).toBeGreaterThanOrEqual(32);
    expect(otherPassword).not.toBe(password);
    await stopServerProcess(other, 'SIGTERM');

    // The login page takes it, then asks for a new password (the change-password form) before any token.
    const server = { url: first.url, services: { identity: { clients: [{ client_id: CONSOLE_CLIENT_ID, redirect_uris: [`${first.url}/console/oauth2-redirect.html`] }] } } };
    const client = server as unknown as Parameters<typeof userLogin>[0];
    await expect(userLogin(client, 'admin@localhost', password)).rejects.toThrow('the account must choose a new password');
    const newPassword = randomBytes(18).toString('base64url');
    const login = await userLogin(client, 'admin@localhost', password, { newPassword });
    const { me } = await graphql(first.url, login.accessToken, '{ me { principal { type email } organizations { name roles { role } } } }');
    expect(me.principal).toEqual({ type: 'user', email: 'admin@localhost' });
    expect(me.organizations).toEqual([{ name: 'default', roles: [{ role: 'organization-owner' }] }]);
    // Used up: the one-time password no longer logs in.
    await expect(userLogin(client, 'admin@localhost', password, { newPassword })).rejects.toThrow(/did not accept the login|login refused/);
    expect(await stopServerProcess(first, 'SIGTERM')).toBe(0);

    // A second start on the same data: no password in its log.
    const second = await startServerProcess(dir, { env: (url) => ({ PUBLIC_URL: url }) });
    expect(passwordLines(second)).toEqual([]);
    expect(second.output()).not.toContain(password);
    expect(second.output()).not.toContain('first start: created');
    await stopServerProcess(second, 'SIGTERM');
  });
});

describe('docker/compose.yaml', () => {
  const compose = parse(fs.readFileSync(COMPOSE, 'utf8'));
  const required = (name: string) => expect.stringMatching(new RegExp(`^\\$\\{${name}:\\?.+\\}$`));

  it('takes the bootstrap client from the environment, no default, and runs docker/provision.sh once the app is healthy', () => {
    const { app, provision } = compose.services;
    expect(app.environment).toMatchObject({ BOOTSTRAP_CLIENT_ID: required('BOOTSTRAP_CLIENT_ID'), BOOTSTRAP_CLIENT_SECRET: required('BOOTSTRAP_CLIENT_SECRET') });
    expect(app.healthcheck.test.join(' ')).toContain('/health/ready');
    expect(provision.depends_on).toEqual({ app: { condition: 'service_healthy' } });
    expect(provision.environment).toMatchObject({
      ASSET_URL: 'http://app:8080',
      BOOTSTRAP_CLIENT_ID: required('BOOTSTRAP_CLIENT_ID'),
      BOOTSTRAP_CLIENT_SECRET: required('BOOTSTRAP_CLIENT_SECRET'),
    });
    // The script runs in the Dockerfile's `provision` stage, which has bash, curl and jq (docker.test.ts checks it).
    expect(provision.build).toEqual({ context: '..', dockerfile: 'docker/Dockerfile', target: 'provision' });
    expect(provision.entrypoint).toBeUndefined();
    expect(provision.restart).toBe('no');
    // docker/.env.example names both, without values.
    const example = fs.readFileSync(path.join(ROOT, 'docker/.env.example'), 'utf8');
    expect(example).toMatch(/^BOOTSTRAP_CLIENT_ID=$/m);
    expect(example).toMatch(/^BOOTSTRAP_CLIENT_SECRET=$/m);
  });

  it.skipIf(!hasTools('docker compose'))('is valid for docker compose, and refused without the bootstrap client', () => {
    const env = { ...process.env, BOOTSTRAP_CLIENT_ID: randomUUID(), BOOTSTRAP_CLIENT_SECRET: randomBytes(32).toString('base64url') };
    expect(spawnSync('docker', ['compose', '-f', COMPOSE, 'config', '-q'], { env, encoding: 'utf8' }).status).toBe(0);
    const { BOOTSTRAP_CLIENT_SECRET: _, ...without } = env;
    const refused = spawnSync('docker', ['compose', '-f', COMPOSE, 'config', '-q'], { env: without, encoding: 'utf8' });
    expect(refused.status).not.toBe(0);
    expect(refused.stderr).toContain('BOOTSTRAP_CLIENT_SECRET');
  });
});
