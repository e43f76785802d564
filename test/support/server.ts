import { randomBytes } from 'node:crypto';
import pino, { Logger } from 'pino';
import { Config, loadConfig } from '../../src/config';
import { RunningServer, start } from '../../src/main';
import { OrganizationEntity } from '../../src/management/organizations/organization.entity';
import { TenantEntity } from '../../src/management/tenants/tenant.entity';
import { freePort } from './free-port';

export interface TestServer extends RunningServer {
  /** `{url}/tenants/{tenant}/api/v3.0` */
  api(tenant: string): string;
  /** Creates a tenant with a unique name (tests share a database and isolate by tenant). */
  createTenant(options?: { showcase?: boolean; eventsEnabled?: boolean; prefix?: string }): Promise<TenantEntity>;
}


/** Starts the real server in-process on a free loopback port, against `databaseUrl`; `log` receives its log lines. */
export async function startTestServer(databaseUrl: string, overrides: Partial<Config> = {}, log?: Logger): Promise<TestServer> {
  const port = overrides.port ?? (await freePort());
  const base = loadConfig({ DATABASE_URL: databaseUrl, PORT: String(port) });
  const config: Config = {
    ...base,
    host: '127.0.0.1',
    publicUrl: `http://127.0.0.1:${port}`,
    logLevel: process.env.TEST_LOG_LEVEL ?? 'silent',
    defaultTenantShowcase: false,
    ...overrides,
  };
  const running = await start(config, log ?? pino({ level: config.logLevel }));
  return {
    ...running,
    api: (tenant) => `${running.url}/tenants/${tenant}/api/v3.0`,
    async createTenant(options = {}) {
      const org = await running.dataSource.manager.save(running.dataSource.manager.create(OrganizationEntity, { name: 'test' }));
      const name = `${options.prefix ?? 't'}-${randomBytes(5).toString('hex')}`;
      return running.services.tenants.create({
        organizationId: org.id,
        name,
        showcase: options.showcase ?? true,
        eventsEnabled: options.eventsEnabled ?? false,
      });
    },
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
