import http from 'node:http';
import { randomBytes } from 'node:crypto';
import pino, { Logger } from 'pino';
import { Config, loadConfig } from '../../src/config';
import { RunningServer, start } from '../../src/server';
import { OrganizationEntity } from '../../src/management/organizations/organization.entity';
import { IdentityTrustEntity } from '../../src/management/federation/identity-trust.entity';
import { TenantEntity } from '../../src/management/tenants/tenant.entity';
import { freePort } from './free-port';
import type { TestIssuer } from './tokens';

export interface TestServer extends RunningServer {
  /** `{url}/tenants/{tenant}/api/v3.0` */
  api(tenant: string): string;
  /**
   * Creates a tenant with a unique name, in an organization of its own (tests share a database and isolate by
   * tenant). With `trust`, the organization trusts that issuer, roles in the `roles` claim (federation).
   */
  createTenant(options?: { showcase?: boolean; eventsEnabled?: boolean; prefix?: string; trust?: Issuer }): Promise<TenantEntity>;
  /** Makes an organization (or one tenant of it) trust an external issuer's tokens. */
  trust(issuer: Issuer, organizationId: string, options?: { tenantId?: string; rolesClaim?: string }): Promise<void>;
}

/** What federation needs of a test issuer. */
export type Issuer = Pick<TestIssuer, 'issuer' | 'jwksUri' | 'audience'>;


/**
 * Settings every test server has: the test issuers' JWKS are on loopback, which production refuses. No outbox
 * publisher: test servers share a database, and one server's publisher would deliver another's events. Tests of
 * events run a publisher on a database of their own (`freshDatabase`) with `{ events: { ...testEvents, publish: true } }`.
 */
const TEST_ENV = { FEDERATION_PRIVATE_NETWORKS: 'true', EVENTS_PUBLISH: 'false' };

/** The auth settings of a test server, to change one of them: `{ auth: { ...testAuth, signupEnabled: false } }`. */
export const testAuth = loadConfig(TEST_ENV).auth;

/** The event settings of a test server (no publisher), to change some: `{ events: { ...testEvents, publish: true } }`. */
export const testEvents = loadConfig(TEST_ENV).events;

/** Starts the real server in-process on a free loopback port, against `databaseUrl`; `log` receives its log lines. */
export async function startTestServer(databaseUrl: string, overrides: Partial<Config> = {}, log?: Logger): Promise<TestServer> {
  const port = overrides.port ?? (await freePort());
  const base = loadConfig({ ...TEST_ENV, DATABASE_URL: databaseUrl, PORT: String(port) });
  const config: Config = {
    ...base,
    host: '127.0.0.1',
    publicUrl: `http://127.0.0.1:${port}`,
    // The identity service's issuer and the console's redirect URI are on the same origin the tests call.
    manageUrl: `http://127.0.0.1:${port}`,
    logLevel: process.env.TEST_LOG_LEVEL ?? 'silent',
    defaultTenantShowcase: false,
    ...overrides,
  };
  const running = await start(config, log ?? pino({ level: config.logLevel }));
  const trust: TestServer['trust'] = async (issuer, organizationId, options = {}) => {
    await running.dataSource.manager.insert(IdentityTrustEntity, {
      organizationId,
      tenantId: options.tenantId ?? null,
      issuer: issuer.issuer,
      audience: issuer.audience,
      jwksUri: issuer.jwksUri,
      rolesClaim: options.rolesClaim ?? 'roles',
    });
    running.services.federation.evict(issuer.issuer);
  };
  return {
    ...running,
    api: (tenant) => `${running.url}/tenants/${tenant}/api/v3.0`,
    async createTenant(options = {}) {
      const org = await running.dataSource.manager.save(running.dataSource.manager.create(OrganizationEntity, { name: 'test' }));
      const name = `${options.prefix ?? 't'}-${randomBytes(5).toString('hex')}`;
      const tenant = await running.services.tenants.create({
        organizationId: org.id,
        name,
        showcase: options.showcase ?? true,
        eventsEnabled: options.eventsEnabled ?? false,
      });
      if (options.trust) await trust(options.trust, org.id);
      return tenant;
    },
    trust,
  };
}

/** base64url without padding, as AAS clients put identifiers in paths. */
export const b64 = (id: string) => Buffer.from(id, 'utf8').toString('base64url');

export function sampleShell(id: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    modelType: 'AssetAdministrationShell',
    id,
    idShort: 'Sample',
    assetInformation: { assetKind: 'Instance', globalAssetId: `${id}#asset` },
    ...extra,
  };
}

/** A response's JSON body, untyped: tests assert on its shape. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export const json = async (res: Response | Promise<Response>): Promise<any> => (await res).json();

/** `method` of `url` with `body` as JSON (none when undefined). */
export const sendJson = (url: string, method: string, body?: unknown) =>
  fetch(url, { method, body: body === undefined ? undefined : JSON.stringify(body), headers: body === undefined ? {} : { 'content-type': 'application/json' } });

/** A GET to 127.0.0.1:`port` with a Host header of its own (fetch sends the URL's): host-based tenants, other host names. */
export const hostGet = (port: string, host: string, path: string, headers: Record<string, string> = {}) =>
  new Promise<{ status: number; body: string }>((resolve, reject) => {
    http
      .get({ host: '127.0.0.1', port, path, headers: { ...headers, host } }, (res) => {
        let text = '';
        res.on('data', (c) => (text += c)).on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
      })
      .on('error', reject);
  });
