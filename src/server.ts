import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { Duplex } from 'node:stream';
import { AddressInfo } from 'node:net';
import pino, { Logger } from 'pino';
import { DataSource } from 'typeorm';
import { ConceptDescriptionService } from './aas/concept-descriptions/concept-description.service';
import { QueryService } from './aas/query/query.service';
import { SearchService } from './aas/search/search.service';
import { ShellService } from './aas/shells/shell.service';
import { CacheSync } from './aas/store/cache-sync';
import { ReadCache } from './aas/store/read-cache';
import { SubmodelService } from './aas/submodels/submodel.service';
import { createApp } from './app';
import { compilePending } from '../rest-facade/executor';
import { StartSummary, renderBanner } from './banner';
import { useCursorSecret } from './common/cursor';
import { PACKAGE } from './common/package-info';
import { ChangeHub } from './events/hub';
import { MqttTransport } from './events/mqtt-transport';
import { OutboxPublisher } from './events/publisher';
import { serveSubscriptions } from './events/subscriptions';
import { PushTargetService } from './push/push-target.service';
import { SemanticService } from './aas/semantics/semantic.service';
import { PUSH_WORKER_DEFAULTS, PushWorker } from './push/push.worker';
import { ClientAddresses } from './common/client-address';
import { resultOf } from './common/result';
import { AccessService } from './auth/access';
import { IdentityService } from './auth/identity/identity.service';
import { loadOidcProvider } from './auth/identity/load-provider';
import { createTokenVerifier } from './auth/jwt';
import { Config, ConfigError, loadConfig } from './config';
import { STATEMENT_TIMEOUT_MS, createDataSource, runMigrations } from './db/data-source';
import { DatabaseUnusableError, explainConnectError } from './db/connect-error';
import { DataDirError } from './db/data-dir-lock';
import { serverSecret } from './db/server-secrets';
import { EmbeddedDatabase, embeddedConnections, startEmbeddedDatabase } from './db/embedded';
import { scheduleAnalyze } from './db/maintenance';
import { StatisticsUpkeep } from './db/statistics';
import { onCitus } from './db/citus';
import { Services } from './graphql/context';
import { buildAppSchema } from './graphql/schema';
import { AccountService } from './management/accounts/account.service';
import { bootstrap } from './management/bootstrap';
import { AttachmentService } from './aas/attachments/attachment.service';
import { PackageService } from './aas/packages/package.service';
import { ImportService } from './aas/import/import.service';
import { DccService } from './dcc/dcc.service';
import { SerializationService } from './aas/serialization/serialization.service';
import { FileService, createBlobStore } from './files';
import { DiscoveryService } from './aas/registry/discovery.service';
import { ImplicitRegistryService } from './aas/registry/implicit.service';
import { DescriptorQueryService } from './aas/registry/descriptor-query.service';
import { RegistryInstanceService } from './aas/registry/instance.service';
import { ShellDescriptorService } from './aas/registry/shell-descriptor.service';
import { MeService } from './management/me/me.service';
import { RoleAssignmentService } from './management/role-assignments/role-assignment.service';
import { UserService } from './management/users/user.service';
import { OrganizationService } from './management/organizations/organization.service';
import { FederationService } from './management/federation/federation.service';
import { TenantService } from './management/tenants/tenant.service';
import { IdentityProviderService } from './management/federation/identity-provider.service';
import { UserGroupService } from './management/user-groups/user-group.service';
import { ServiceAccountSecretService } from './management/service-accounts/service-account-secret.service';
import { ServiceAccountService } from './management/service-accounts/service-account.service';

export interface RunningServer {
  /** Where the server listens, e.g. http://127.0.0.1:8080. */
  url: string;
  dataSource: DataSource;
  services: Services;
  /** The URLs and facts a person starting it is told (the banner on a terminal). */
  summary: StartSummary;
  /** Stops accepting, lets in-flight requests finish (up to the shutdown timeout), closes the database. */
  close(): Promise<void>;
}

export function createLogger(config: Pick<Config, 'logLevel'>, destination?: pino.DestinationStream): Logger {
  const options = { level: config.logLevel, base: { service: 'asset-platform' } };
  return destination ? pino(options, destination) : pino(options);
}

/**
 * On a terminal, the log lines of the start wait until the banner has been printed: a person reads the banner first
 * and the lines after it. Released at once if the start fails.
 */
class HeldUntilBanner implements pino.DestinationStream {
  private held: string[] | undefined = [];

  write(line: string): void {
    if (this.held) this.held.push(line);
    else process.stdout.write(line);
  }

  release(): void {
    const held = this.held ?? [];
    this.held = undefined;
    for (const line of held) process.stdout.write(line);
  }
}

/** config -> database -> migrations -> first-start bootstrap -> HTTP server. */
/**
 * Starts the server. `embeddedStarting` is the embedded database (without `DATABASE_URL`) when the caller has
 * begun to start it already (`startEarly`, src/main.ts), else it is started here.
 */
export async function start(config: Config, log: Logger = createLogger(config), embeddedStarting?: Promise<EmbeddedDatabase>): Promise<RunningServer> {
  // The identity service's library is an ES module, loaded asynchronously: it loads while the database is asked.
  loadOidcProvider().catch(() => undefined);
  let embedded: EmbeddedDatabase | undefined;
  let databaseUrl = config.databaseUrl;
  if (!databaseUrl) {
    embedded = await (embeddedStarting ?? startEmbeddedDatabase(config.dataDir, embeddedConnections(config)));
    databaseUrl = embedded.url;
    log.info(
      { dataDir: config.dataDir, socket: embedded.socketPath, pid: process.pid },
      'embedded PostgreSQL (PGlite) started on a unix socket only this user can reach; DATA_DIR is locked by this process. Set DATABASE_URL to use a PostgreSQL server',
    );
  }
  // A PostgreSQL server across a network may fall silent (a partition): every wait for it is bounded. The watch on a silent
  // statement gives up on a connection when the database answers no other either, or after the longest a statement
  // may run on the server: by then any statement has ended, answered or cancelled.
  const listenBounds = { heartbeatMs: config.dbAnswerTimeoutMs, connectTimeoutMs: config.dbConnectTimeoutMs };
  const dataSource = createDataSource(
    databaseUrl,
    config.dbPoolSize,
    embedded
      ? undefined
      : {
          connectTimeoutMs: config.dbConnectTimeoutMs,
          answerTimeoutMs: config.dbAnswerTimeoutMs,
          longestStatementMs: Math.max(STATEMENT_TIMEOUT_MS, config.queryTimeoutMs) + config.dbAnswerTimeoutMs,
        },
    config.dbLockTimeoutMs,
    !embedded,
  );
  await dataSource.initialize().catch((err: unknown) => {
    throw (embedded ? undefined : explainConnectError(err, databaseUrl)) ?? err;
  });
  const applied = await runMigrations(dataSource);
  if (applied.length) log.info({ migrations: applied }, 'database migrated');
  // Cursors are sealed with a key every replica shares, so any replica continues a list another one began.
  useCursorSecret(await serverSecret(dataSource, 'cursor'));
  // Known from the start: a write asks it inside its transaction (`onCitus`).
  await onCitus(dataSource);
  const stopAnalyze = embedded ? scheduleAnalyze(dataSource, log) : undefined;
  // Tables that gained many rows are analyzed soon after, on both databases: plans that read one element of a large
  // submodel need to know how large it is.
  const statistics = new StatisticsUpkeep(dataSource, log);

  // The read cache of shells, submodels and concept descriptions; other replicas' writes reach it by NOTIFY (the
  // embedded database has no other replicas).
  const cacheSync = new CacheSync(new ReadCache(config.readCache), dataSource, { listenUrl: embedded ? undefined : databaseUrl, log, ...listenBounds });
  await cacheSync.start();
  const shells = new ShellService(dataSource, cacheSync);
  const submodels = new SubmodelService(dataSource, shells, cacheSync);
  const conceptDescriptions = new ConceptDescriptionService(dataSource, cacheSync);
  const federation = new FederationService(dataSource);
  const accounts = new AccountService(dataSource, config);
  const serviceAccounts = new ServiceAccountService(dataSource, config);
  // The built-in identity service: its signing keys are created on the first start, loaded on every start.
  const clients = new ClientAddresses(config.trustProxy);
  const identity = new IdentityService(config, dataSource, accounts, log, clients);
  await identity.start();
  const blobs = createBlobStore(config.files.store, dataSource);
  const files = new FileService(dataSource, blobs, log);
  const tenants = new TenantService(dataSource, config, (tenantId) =>
    blobs.removeTenant(tenantId).catch((err) => log.warn({ err, tenantId }, 'could not remove the file contents of a deleted tenant from the object store')),
  );
  const changes = new ChangeHub((err) => log.error({ err }, 'a change-event listener failed'));
  const access = new AccessService(dataSource);
  const userGroups = new UserGroupService(dataSource);
  const users = new UserService(dataSource, config);
  const implicitRegistry = new ImplicitRegistryService(shells, submodels, (tenantName) => `${tenants.urlOf(tenantName)}/api/v3.0`);
  const services: Services = {
    tenants,
    shells,
    submodels,
    conceptDescriptions,
    query: new QueryService(dataSource, { shells, submodels, conceptDescriptions }, { timeoutMs: config.queryTimeoutMs, maxElementConditions: config.queryMaxElementConditions }),
    search: new SearchService(dataSource, shells, { timeoutMs: config.queryTimeoutMs, maxElementConditions: config.queryMaxElementConditions }),
    serialization: new SerializationService(shells, submodels, conceptDescriptions, files, config.responseLimitBytes),
    imports: new ImportService(dataSource, shells, submodels, conceptDescriptions, files),
    attachments: new AttachmentService(dataSource, shells, submodels, files),
    packages: new PackageService(dataSource, files, log),
    files,
    dcc: new DccService(dataSource, shells, submodels, files),
    implicitRegistry,
    registryInstances: new RegistryInstanceService(dataSource),
    shellDescriptors: new ShellDescriptorService(dataSource),
    discovery: new DiscoveryService(dataSource),
    descriptorQueries: new DescriptorQueryService(dataSource, shells, submodels, implicitRegistry, { timeoutMs: config.queryTimeoutMs }),
    changes,
    pushTargets: new PushTargetService(dataSource, { privateNetworks: config.pushPrivateNetworks }),
    semantics: new SemanticService(dataSource),
    access,
    federation,
    tokens: createTokenVerifier(config.auth, identity.builtInIssuer, federation),
    accounts,
    identity,
    organizations: new OrganizationService(dataSource),
    identityProviders: new IdentityProviderService(dataSource, federation, config.auth.federationPrivateNetworks),
    userGroups,
    serviceAccounts,
    serviceAccountSecrets: new ServiceAccountSecretService(dataSource, serviceAccounts),
    users,
    roleAssignments: new RoleAssignmentService(dataSource),
    me: new MeService(dataSource, access, { users, serviceAccounts, userGroups }),
  };
  const created = await bootstrap(dataSource, {
    ownerEmail: config.bootstrapOwnerEmail,
    defaultTenantShowcase: config.defaultTenantShowcase,
    provisioningClient: config.provisioningClient,
  });
  if (created) {
    // Said once, on the first start, and never again: only the password's hash is kept, and it must be changed at first login.
    log.warn(
      { organizationId: created.organization.id, tenant: created.tenant.name, login: created.owner.email, oneTimePassword: created.oneTimePassword, loginUrl: `${config.manageUrl}/admin` },
      'first start: created the first organization, its owner and the tenant "default". Log in with this one-time password; you will be asked to choose your own',
    );
  }
  const defaultTenant = await services.tenants.byName('default');
  const showcase = Boolean(defaultTenant?.showcase);
  if (showcase) {
    log.warn(
      { tenant: 'default', url: `${services.tenants.urlOf('default')}/api/v3.0` },
      'tenant "default" is in SHOWCASE MODE: its API needs no token and anyone who can reach this port can read and change its data. Not for production.',
    );
  }

  const schema = await buildAppSchema();
  let draining = false;
  const app = await createApp({ config, schema, services, dataSource, log, clients, draining: () => draining });
  const server = http.createServer({
    // A real client sends its headers at once and its body at network speed; one that trickles them holds a
    // connection, so both have deadlines (checked every second), and one address holds a bounded number of connections.
    headersTimeout: config.headersTimeoutMs,
    requestTimeout: config.requestTimeoutMs,
    connectionsCheckingInterval: 1_000,
    // Longer than Node's 5 s: a client reuses an idle connection until shortly before the time the server names in
    // its Keep-Alive header, and a busy client that looks a moment too late sends its request into a connection the
    // server is closing (ECONNRESET, and a POST it cannot safely send again).
    keepAliveTimeout: config.keepAliveTimeoutMs,
  });
  // While draining, every answer closes its connection: a load balancer never finds a kept-alive connection that
  // the stop closes under a request it has just sent (a POST it could not send again).
  server.on('request', (_req: http.IncomingMessage, res: http.ServerResponse) => {
    if (draining) res.setHeader('Connection', 'close');
  });
  server.on('request', limitConnectionsPerClient(server, config.maxConnectionsPerClient, clients, log, app.handler));
  const subscriptions = serveSubscriptions(server, schema, services, log);
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Duplex) => answerClientError(err, socket, log));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, resolve);
  });
  const { port } = server.address() as AddressInfo;
  const host = config.host === '0.0.0.0' || config.host === '::' ? '127.0.0.1' : config.host;
  const url = `http://${host}:${port}`;
  const listen = `${config.host.includes(':') ? `[${config.host}]` : config.host}:${port}`;
  // Where clients reach it is PUBLIC_URL (the address it listens on may be any interface, or behind a proxy).
  log.info({ listen, publicUrl: config.publicUrl, ...Object.fromEntries(app.entryPoints.map((e) => [e.key, e.url])) }, 'listening');
  // Background work begins once the server listens: the start-up above holds the event loop for seconds (schema,
  // documents, routes), and a first round begun before would see its database connection or the MQTT broker's
  // answer time out for that, and warn about a fault that is not there.
  // Every replica listens for the events others deliver (its subscribers get them too); those with EVENTS_PUBLISH deliver.
  const publisher = new OutboxPublisher(dataSource, changes, {
    deliver: config.events.publish,
    transport: config.events.publish && config.events.mqttUrl
      ? new MqttTransport({ url: config.events.mqttUrl, username: config.events.mqttUsername, password: config.events.mqttPassword }, log)
      : undefined,
    hooks: [services.pushTargets.enqueue],
    tenantUrl: (name) => services.tenants.urlOf(name),
    pollMs: config.events.pollMs,
    batchSize: config.events.batchSize,
    retentionMs: config.events.retentionSeconds * 1_000,
    // Other replicas announce what they delivered by NOTIFY; the embedded database has no other replicas.
    listenUrl: embedded ? undefined : databaseUrl,
    listenBounds,
    log,
  });
  await publisher.start();
  // Pushes to push targets, queued by the publisher's hook above (here or on another replica): delivery work too,
  // done by the replicas that deliver (EVENTS_PUBLISH), looking for due pushes as often as for events.
  const pushWorker = config.events.publish
    ? new PushWorker(dataSource, services.pushTargets, services, log, { ...PUSH_WORKER_DEFAULTS, pollMs: config.events.pollMs, privateNetworks: config.pushPrivateNetworks })
    : undefined;
  pushWorker?.start();
  // The facade's operations not run yet compile now, between requests (one that comes first compiles its own).
  void compilePending(schema).catch((err: unknown) => log.error({ err }, 'a facade operation does not compile'));

  const summary: StartSummary = {
    name: PACKAGE.name,
    version: PACKAGE.version,
    listen,
    publicUrl: config.publicUrl,
    entryPoints: app.entryPoints,
    database: embedded ? { kind: 'embedded', dataDir: config.dataDir } : { kind: 'postgres', host: new URL(databaseUrl).host || 'a unix socket' },
    owner: { login: created?.owner.email ?? config.bootstrapOwnerEmail, oneTimePassword: created?.oneTimePassword, loginUrl: `${config.manageUrl}/admin` },
    showcase,
  };

  let closing: Promise<void> | undefined;
  const close = () =>
    (closing ??= (async () => {
      draining = true;
      if (config.shutdownDrainMs) {
        log.info({ ms: config.shutdownDrainMs }, 'shutting down: draining (readiness 503, connections closed after each answer)');
        await new Promise((resolve) => setTimeout(resolve, config.shutdownDrainMs));
      }
      log.info('shutting down: no new connections, finishing in-flight requests');
      const drained = new Promise<void>((resolve) => server.close(() => resolve()));
      await subscriptions.close();
      // Keep-alive connections go as soon as they are idle: now, and as their in-flight responses finish.
      server.closeIdleConnections();
      const sweep = setInterval(() => server.closeIdleConnections(), 50);
      const timer = setTimeout(() => server.closeAllConnections(), config.shutdownTimeoutMs);
      await drained;
      clearInterval(sweep);
      clearTimeout(timer);
      await app.apollo.stop();
      await publisher.stop();
      await cacheSync.stop();
      await pushWorker?.stop();
      identity.stop();
      blobs.close();
      await stopAnalyze?.();
      await statistics.stop();
      await dataSource.destroy();
      await embedded?.stop();
      log.info('stopped');
    })());
  return { url, dataSource, services, summary, close };
}

/**
 * A request Node's parser refused before it reached the app (a URL or headers over 16 KB, a malformed request
 * line, bytes after a body without a length, a request that took too long): answered with a Result too,
 * then the connection is closed.
 *
 * The refused bytes may follow a request still being answered on the same connection (a client that sends a GET
 * or HEAD with a body but no Content-Length: the body is parsed as the next request). Written at once, the refusal
 * would take that request's place (and a HEAD's client would read its body as stray bytes).
 */
function answerClientError(err: NodeJS.ErrnoException, socket: Duplex, log: Logger): void {
  const response = (socket as Duplex & { _httpMessage?: http.ServerResponse | null })._httpMessage;
  if (err.code === 'ECONNRESET') {
    socket.destroy();
    return;
  }
  if (response && !response.writableFinished && response.req.complete) {
    // The refused bytes came after a request that was read whole and is still being answered. They are not
    // answered: a second answer would reach a client that no longer waits for one (or that reuses the connection
    // for its next request). That answer closes the connection instead.
    if (!response.headersSent) response.shouldKeepAlive = false;
    else response.once('finish', () => socket.end());
    return;
  }
  if (!socket.writable || response?.headersSent) {
    socket.destroy();
    return;
  }
  const status = err.code === 'HPE_HEADER_OVERFLOW' ? 431 : err.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 408 : 400;
  const text =
    status === 431 ? 'The request line or headers are larger than 16 KB.'
      : status === 408 ? 'The request was not received in time.'
        : 'The request is not well-formed HTTP.';
  const requestId = randomUUID();
  log.info({ requestId, status, reason: text, code: err.code }, 'request refused by the HTTP parser');
  const body = JSON.stringify(resultOf(status, [text], requestId));
  // The answer to a HEAD request has no body (what the parser read so far tells the method).
  const head = (err as { rawPacket?: Buffer }).rawPacket?.subarray(0, 5).toString('latin1') === 'HEAD ';
  socket.end(
    `HTTP/1.1 ${status} ${http.STATUS_CODES[status]}\r\nX-Request-Id: ${requestId}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${head ? '' : body}`,
  );
}

/**
 * What one client address may hold open (MAX_CONNECTIONS_PER_CLIENT; 0: no limit), the address being the one
 * `clients` tells: a direct client's connections, counted as they open (one beyond the cap is closed at once); a
 * trusted proxy's connections carry many clients' requests, so behind it each client's requests in flight count
 * instead (one beyond the cap is answered 429). Returns the request handler to serve through it.
 */
function limitConnectionsPerClient(server: http.Server, max: number, clients: ClientAddresses, log: Logger, handler: http.RequestListener): http.RequestListener {
  if (max === 0) return handler;
  const open = new Map<string, number>();
  const take = (address: string): boolean => {
    const count = (open.get(address) ?? 0) + 1;
    if (count > max) return false;
    open.set(address, count);
    return true;
  };
  const release = (address: string) => {
    const left = (open.get(address) ?? 1) - 1;
    if (left > 0) open.set(address, left);
    else open.delete(address);
  };
  server.on('connection', (socket) => {
    const address = socket.remoteAddress ?? '';
    if (clients.isProxy(address)) return;
    if (!take(address)) {
      log.warn({ address, max }, 'connection refused: too many open connections from this address (MAX_CONNECTIONS_PER_CLIENT)');
      socket.destroy();
      return;
    }
    socket.once('close', () => release(address));
  });
  return (req, res) => {
    if (!clients.isProxy(req.socket.remoteAddress)) return handler(req, res);
    const address = clients.of(req);
    if (!take(address)) {
      const requestId = randomUUID();
      const text = `Too many open requests from this client address (at most ${max}); retry when one has finished.`;
      log.warn({ requestId, address, max }, 'request refused: too many open requests from this client address behind a proxy (MAX_CONNECTIONS_PER_CLIENT)');
      res.writeHead(429, { 'Content-Type': 'application/json', 'Retry-After': '1', 'X-Request-Id': requestId });
      res.end(JSON.stringify(resultOf(429, [text], requestId)));
      return;
    }
    res.once('close', () => release(address));
    return handler(req, res);
  };
}

/**
 * Reads the configuration and starts the server until SIGINT or SIGTERM (what `node dist/src/main.js` runs), on the
 * embedded database `embeddedStarting` if main.ts began to start it.
 */
export function runServer(embeddedStarting?: Promise<EmbeddedDatabase>): void {
  let config: Config;
  try {
    config = loadConfig();
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    process.stderr.write(`configuration error: ${err.message}\n`);
    process.exit(2);
  }
  const held = process.stdout.isTTY ? new HeldUntilBanner() : undefined;
  const log = createLogger(config, held);
  start(config, log, embeddedStarting).then(
    (running) => {
      // A person at a terminal gets the URLs to open, then the log; a log collector gets the `listening` line only.
      if (held) {
        process.stdout.write(renderBanner(running.summary));
        held.release();
      }
      const stop = (signal: string) => {
        log.info({ signal }, 'signal received');
        running.close().then(
          () => process.exit(0),
          (err) => {
            log.error({ err }, 'shutdown failed');
            process.exit(1);
          },
        );
      };
      process.once('SIGINT', () => stop('SIGINT'));
      process.once('SIGTERM', () => stop('SIGTERM'));
    },
    (err) => {
      held?.release();
      // A data directory or a database that cannot be used is the operator's to fix: say so plainly, without a stack.
      if (err instanceof DataDirError || err instanceof DatabaseUnusableError) {
        log.fatal(err.message);
        process.stderr.write(`cannot start: ${err.message}\n`);
      } else log.fatal({ err }, 'start failed');
      process.exit(1);
    },
  );
}

