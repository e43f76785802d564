import { randomUUID } from 'node:crypto';
import type { IncomingMessage, OutgoingHttpHeaders, RequestListener, ServerResponse } from 'node:http';
import { ApolloServer, HeaderMap } from '@apollo/server';
import { unwrapResolverError } from '@apollo/server/errors';
import { ApolloServerPluginLandingPageDisabled } from '@apollo/server/plugin/disabled';
import cors from '@koa/cors';
import Router from '@koa/router';
import { GraphQLError, GraphQLSchema } from 'graphql';
import Koa from 'koa';
import type { Logger } from 'pino';
import { DataSource } from 'typeorm';
import { createAdminConsoleRouter } from '../rest-facade/admin-console';
import { createApiConsoleRouter } from '../rest-facade/api-console';
import { createConsoleRouter } from '../rest-facade/console';
import { createFrontDoorRouter } from '../rest-facade/front-door';
import { Admission, bodyLimits } from '../rest-facade/admission';
import { facadeErrorOf } from '../rest-facade/executor';
import { FacadeError } from '../rest-facade/facade-error';
import { createFileRouter } from '../rest-facade/files';
import { MANAGEMENT_API_BASE, createManagementApiRouter } from '../rest-facade/management-api';
import { managementRoutes } from '../rest-facade/management';
import { createOpenApiRouter } from '../rest-facade/openapi/router';
import { guardQueries } from '../rest-facade/query-guard';
import { registryRefusals } from '../rest-facade/registry';
import { createTenantApiRouter } from '../rest-facade/tenant-api';
import { API_VERSION, API_VERSIONS, ApiVersion, METAMODEL_OF } from '../rest-facade/api-versions';
import { HotRead, answerHot, hotReadOf, hotReads } from '../rest-facade/hot-reads';
import { identifierFallback } from '../rest-facade/identifier-fallback';
import { routesBySegment } from '../rest-facade/segment-dispatch';
import { ClientAddresses } from './common/client-address';
import { resultOf } from './common/result';
import { BASELINE_HEADERS } from './common/security-headers';
import { Config } from './config';
import { EntryPoint, entryPoints } from './common/entry-points';
import { PACKAGE } from './common/package-info';
import { ADMIN_CLIENT_ID, CONSOLE_CLIENT_ID, GRAPHIQL_CLIENT_ID } from './auth/identity/identity.service';
import { admitEarly, admitToTenant } from './auth/policy';
import { Context, Services, createContext } from './graphql/context';
import { badGraphqlRequest, errorCodeOf, unavailableText } from './graphql/errors';
import { apolloKoa } from './graphql/koa-apollo';
import { MAX_TEXT_DEPTH, MAX_TOKENS, costError, nestsTooDeep, operationLimits, stringArgumentLimits, stringVariableProblem } from './graphql/limits';
import { stringifyWithin } from './graphql/response-size';
import { withReadBudget } from './db/read-budget';
import { isDatabaseUnavailable, isLockTimeout } from './db/unavailable';
import { ClientGoneError, clientGoneSignal, isClientGone, whileClientHere } from './common/client-gone';
import { MAX_JSON_DEPTH, nestsDeeperThan } from './common/json-depth';
import { BodyError, readJsonBody } from './common/json-body';
import { argumentValue, demandsOf } from './common/operation-demands';
import { WorkShare, WorkShares, workRefusalText } from './common/work-shares';

export interface AppDeps {
  config: Config;
  schema: GraphQLSchema;
  services: Services;
  dataSource: DataSource;
  log: Logger;
  /** Who the client of a request is (TRUST_PROXY). */
  clients: ClientAddresses;
  /** Whether the process is stopping (SHUTDOWN_DRAIN_MS): readiness answers 503 so that load balancers stop sending. */
  draining?: () => boolean;
}

export interface App {
  koa: Koa;
  /** The HTTP request listener: cached hot reads answered at once, everything else through Koa. */
  handler: RequestListener;
  apollo: ApolloServer<Context>;
  /** What the front door links to, and the start banner names. */
  entryPoints: EntryPoint[];
}

const REQUEST_ID = /^[A-Za-z0-9._-]{1,64}$/;
/** What a 503 tells clients to wait before retrying: the pool reconnects by itself as soon as the database is back. */
const RETRY_AFTER_S = 5;
/** What a 429 (no share of expensive work free) tells clients to wait: about what a query's page takes. */
const BUSY_RETRY_AFTER_S = 2;

/** The GraphQL context, under a name that does not clash with Koa's own `Context` in the declaration below. */
type GraphQLContext = Context;

declare module 'koa' {
  interface DefaultState {
    requestId: string;
    log: Logger;
    tenant?: string;
    /** The GraphQL context of the request, once built: who the caller turned out to be, which tenants it asked for. */
    context?: GraphQLContext;
  }
}

/** The reason (first message, clipped), tenant and subject of a refused request, for its log line; never the token. */
function refusal(ctx: Koa.Context): Record<string, unknown> {
  const context = ctx.state.context;
  const tenants = ctx.state.tenant ?? ([...(context?.tenantsAsked ?? [])].join(',') || undefined);
  return { reason: reasonOf(ctx.body), tenant: tenants, subject: context?.subject };
}

function reasonOf(body: unknown): string | undefined {
  let parsed = body;
  // GraphQL answers are JSON text already; a refusal's is small.
  if (typeof body === 'string' && body.length < 65_536) {
    try {
      parsed = JSON.parse(body);
    } catch {
      return undefined;
    }
  }
  const first = (parsed as { messages?: { text?: unknown }[]; errors?: { message?: unknown }[] } | null)?.messages?.[0]?.text ??
    (parsed as { errors?: { message?: unknown }[] } | null)?.errors?.[0]?.message;
  return typeof first === 'string' ? first.slice(0, 300) : undefined;
}

/** Koa composition: request id and logging, errors as AAS Result objects, health, GraphQL, the REST facade. */
export async function createApp(deps: AppDeps): Promise<App> {
  const { config, schema, services, log, clients } = deps;
  // Koa believes X-Forwarded-Proto and -Host only with TRUST_PROXY, and then only from a trusted proxy (below).
  const koa = new Koa({ proxy: clients.trustsProxies });
  /** Whether each request gets its log line (LOG_LEVEL info or finer): else the line is not even put together. */
  const requestLogged = log.isLevelEnabled('info');
  /** The start of every request: forwarded headers no trusted proxy sent dropped, its id, its log. */
  const begin = (req: IncomingMessage): Begun => {
    const started = process.hrtime.bigint();
    clients.dropUntrusted(req);
    const incoming = req.headers['x-request-id'];
    const requestId = typeof incoming === 'string' && REQUEST_ID.test(incoming) ? incoming : randomUUID();
    // The request's logger is made when first used: a hot read below the log level of its line never uses it.
    let child: Logger | undefined;
    return {
      started,
      requestId,
      get log() {
        return (child ??= log.child({ requestId }));
      },
    };
  };
  /** Requests the hot-read listener began and left to Koa (a miss, a refusal): what it began, its context included. */
  const handedOver = new WeakMap<IncomingMessage, Begun>();
  // What reaches Koa's own error event is a connection that failed mid-request (the client went away, or sent
  // bytes the parser refused): the client's doing, logged quietly instead of Koa's print to stderr.
  koa.on('error', (err: Error) => log.debug({ err }, 'connection failed during a request'));

  koa.use(async (ctx, next) => {
    // A request the hot-read listener looked at first comes with its id, log and context (below).
    const begun = handedOver.get(ctx.req) ?? begin(ctx.req);
    ctx.request.ip = clients.of(ctx.req);
    const { requestId } = begun;
    ctx.state.requestId = requestId;
    ctx.state.log = begun.log;
    if (begun.context) ctx.state.context = begun.context;
    ctx.set('X-Request-Id', requestId);
    // Before everything else, so that the identity service's answers and every error carry them too.
    ctx.set(BASELINE_HEADERS);
    try {
      await next();
    } finally {
      if (requestLogged) {
        const line = requestLine(ctx.method, ctx.url, ctx.status, begun.started, ctx.ip);
        // Why a client was refused, on which tenant and as whom, so an operator can answer "why do I get 401/403?".
        if (ctx.status >= 400 && ctx.status < 500) Object.assign(line, refusal(ctx));
        ctx.state.log.info(line, 'request');
      }
    }
  });

  // A request refused before its body was all read (admission refuses before reading; a limit stops reading): the
  // rest of the body is read and dropped at a bounded pace (`DropRate`), for up to `LINGER_MS` after the answer, so
  // that the client gets the answer on a connection that stays usable. Closing at once would reset the connection
  // under a client still sending, and the reset takes the answer with it where the client has not read it yet (one
  // busy sending reads nothing).
  const dropping = new DropRate(config.refusedBodyRate);
  koa.use(async (ctx, next) => {
    await next();
    if (ctx.status >= 400 && !ctx.req.complete) lingerAfterRefusal(ctx.req, ctx.res, dropping);
  });

  // The built-in identity service at /oidc, before the AAS error handling and body parsers: oidc-provider is a
  // Koa app of its own, answering OAuth JSON errors (and our login pages, HTML).
  koa.use(services.identity.middleware());

  koa.use(async (ctx, next) => {
    try {
      await next();
      if (ctx.status === 404 && ctx.body === undefined) throw new FacadeError(404, `No route for ${ctx.method} ${ctx.path}.`);
      // The router answers a method a path does not take (405, with Allow) or no route takes at all (501).
      if (ctx.status === 405 && ctx.body === undefined) throw new FacadeError(405, `Method ${ctx.method} is not allowed here; allowed: ${ctx.response.get('Allow')}.`);
      if (ctx.status === 501 && ctx.body === undefined) throw new FacadeError(501, `Method ${ctx.method} is not supported by this server.`);
    } catch (err) {
      const { status, messages } = errorResponse(err);
      // A FacadeError 500 was logged with its cause where it arose.
      if (status >= 500 && status !== 503 && !(err instanceof FacadeError)) ctx.state.log.error({ err }, 'request failed');
      if (status === 503) ctx.state.log.warn({ err: err instanceof FacadeError ? undefined : err }, 'database unavailable');
      ctx.status = status;
      if (status === 401) ctx.set('WWW-Authenticate', 'Bearer realm="asset-platform"');
      if (status === 503) ctx.set('Retry-After', String(RETRY_AFTER_S));
      if (status === 429) ctx.set('Retry-After', String(BUSY_RETRY_AFTER_S));
      ctx.body = resultOf(status, messages, ctx.state.requestId);
    }
  });

  // CORS (CORS_ORIGINS; off by default): inside the error handling, so refusals carry the headers too and a
  // browser page of another origin can read their Result; preflights are answered here, before any route.
  if (config.corsOrigins) koa.use(corsMiddleware(config.corsOrigins));

  // The token is verified when an operation first needs the caller (never for showcase tenants); one context per
  // request, whoever asks for it (the hot reads, then the route).
  const contextOf = (ctx: Koa.Context): Context => {
    if (ctx.state.context) return ctx.state.context;
    // The API version's metamodel, when a route below `/api/{version}` (or the hot reads) set it before; else V3.1.
    const context = createContext(services, ctx.state.requestId, ctx.state.log, ctx.get('authorization') || undefined, clientGoneSignal(ctx.res), ctx.state.aasVersion);
    requestOf.set(context, ctx);
    return (ctx.state.context = context);
  };
  /** The HTTP request of a GraphQL context (its client address, its response), for the shares of expensive work. */
  const requestOf = new WeakMap<Context, Koa.Context>();
  // Request admission (rest-facade/admission.ts): who may send a body, what it may cost, and the shares of expensive work.
  const shares = new WorkShares({
    perCaller: config.work.perCaller,
    perTenant: config.work.perTenant,
    total: Math.max(1, config.dbPoolSize - config.work.poolReserve),
  });
  const admission: Admission = {
    contextOf,
    admit: admitEarly,
    shares,
    documentBody: bodyLimits(config.bodyLimitBytes, config.bodyValueLimit),
    requestBody: bodyLimits(Math.min(config.requestBodyLimitBytes, config.bodyLimitBytes), config.bodyValueLimit),
  };
  /** The caller a share of expensive work is counted for: the verified principal, else the client address. */
  const callerKey = async (context: Context): Promise<string> => {
    const principal = await context.principal();
    return principal ? `${principal.kind}:${principal.issuer}#${principal.subject}` : `client:${requestOf.get(context)?.ip ?? 'unknown'}`;
  };
  /** Shares taken by GraphQL operations, given back when their response is sent. */
  const graphqlShares = new WeakMap<Context, WorkShare>();
  const admitReader = (context: Context, tenant: string) => admitToTenant(context, tenant, 'reader');

  const health = new Router();
  health.get('/health/live', (ctx) => {
    ctx.body = { status: 'UP' };
  });
  health.get('/health/ready', async (ctx) => {
    if (deps.draining?.()) {
      ctx.status = 503;
      ctx.body = { status: 'DOWN', reason: 'shutting down' };
      return;
    }
    try {
      await deps.dataSource.query('SELECT 1');
      ctx.body = { status: 'UP', database: 'UP' };
    } catch (err) {
      ctx.state.log.warn({ err }, 'readiness: database unreachable');
      ctx.status = 503;
      ctx.set('Retry-After', String(RETRY_AFTER_S));
      ctx.body = { status: 'DOWN', database: 'DOWN' };
    }
  });
  // Every request reads stored documents under one budget (RESPONSE_LIMIT), GraphQL and REST alike.
  koa.use((ctx, next) => withReadBudget(config.responseLimitBytes, next));
  // Every request's work, down to its database statements, knows when its client has gone (and stops).
  koa.use((ctx, next) => whileClientHere(clientGoneSignal(ctx.res), next));
  // Cached GETs by id, past routing and GraphQL execution, admitted by the auth checker itself (hot-reads.ts).
  koa.use(hotReads({ contextOf, admitReader, triedBefore: (ctx) => handedOver.has(ctx.req) }));
  koa.use(health.routes());
  const tenantApiUrlOf = (tenant: string, version: ApiVersion = API_VERSION) => `${services.tenants.urlOf(tenant)}/api/${version}`;
  const links = entryPoints({
    publicUrl: config.publicUrl,
    manageUrl: config.manageUrl,
    defaultTenantApiUrl: tenantApiUrlOf('default'),
    defaultTenantApiPath: `tenants/default/api/${API_VERSION}`,
  });
  const frontDoor = createFrontDoorRouter({
    name: PACKAGE.name,
    version: PACKAGE.version,
    entryPoints: links,
    showcaseTenants: (limit) => services.tenants.showcaseNames(limit),
  });
  koa.use(frontDoor.routes());
  koa.use(frontDoor.allowedMethods());
  koa.use(createConsoleRouter(services.identity.loginFor(GRAPHIQL_CLIENT_ID)).routes());
  koa.use(
    createAdminConsoleRouter({
      manageUrl: config.manageUrl,
      login: services.identity.loginFor(ADMIN_CLIENT_ID),
      // Without the database the page still loads (with the built-in sign-in only) and says what is wrong itself.
      signInProviders: (organizationId) =>
        services.federation.signInProviders(organizationId).catch((err: unknown) => {
          log.warn({ err }, 'the identity providers with a console sign-in could not be read');
          return [];
        }),
    }).routes(),
  );

  const apollo = new ApolloServer<Context>({
    schema,
    introspection: true,
    // server.ts owns SIGINT/SIGTERM: Apollo's own handlers would stop it and re-raise the signal, killing the
    // process before in-flight requests finish and the database closes.
    stopOnTerminationSignals: false,
    // What Apollo itself reports (a document it could not cache, an unexpected failure) goes to our log, not stderr.
    logger: log,
    // No automatic persisted queries: nothing here sends them, and malformed ones came out as internal errors.
    persistedQueries: false,
    validationRules: [operationLimits, stringArgumentLimits],
    parseOptions: { maxTokens: MAX_TOKENS },
    includeStacktraceInErrorResponses: false,
    // Our errors carry a code and a message meant for clients; anything else is a bug whose text stays in the log.
    formatError: (formatted, error) => {
      if (formatted.extensions?.code !== 'INTERNAL_SERVER_ERROR') return formatted;
      if (error instanceof GraphQLError && errorCodeOf(error) === 'SERVICE_UNAVAILABLE') {
        return { message: unavailableText(error.originalError), path: formatted.path, extensions: { code: 'SERVICE_UNAVAILABLE' } };
      }
      return { message: 'Internal server error.', path: formatted.path, extensions: { code: 'INTERNAL_SERVER_ERROR' } };
    },
    // The answer is serialized under the same byte budget as the reads behind it: aliases of one large document
    // would otherwise multiply it without reading anything more.
    stringifyResult: (result) => stringifyWithin(result, config.responseLimitBytes),
    plugins: [
      // The playground is our own offline GraphiQL at /graphiql, not Apollo's CDN-loaded landing page.
      ApolloServerPluginLandingPageDisabled(),
      {
        async requestDidStart() {
          return {
            // The cost depends on the variables (a `limit` may be one), so it is checked here, before execution.
            async didResolveOperation({ document, operation, request, contextValue }) {
              if (!operation) return;
              // Subscriptions are served over WebSocket (src/events/subscriptions.ts); over HTTP there is no stream.
              if (operation.operation === 'subscription') {
                throw badGraphqlRequest('Subscriptions are served over WebSocket at /graphql (graphql-ws), not over HTTP.');
              }
              const cost = costError(schema, document, operation, request.variables);
              if (cost) throw cost;
              // A POST body's depth was checked as it was read; GET variables come from the query string.
              if (request.http?.method !== 'POST' && nestsDeeperThan(request.variables, MAX_JSON_DEPTH)) {
                throw badGraphqlRequest(`The variables nest deeper than ${MAX_JSON_DEPTH} levels.`);
              }
              const tooLong = stringVariableProblem(schema, operation, request.variables);
              if (tooLong) throw badGraphqlRequest(tooLong);
              // Expensive work takes a share of the pool (src/common/work-shares.ts), as on the REST routes.
              const expensive = demandsOf(schema, operation, document, request.variables ?? {}).find((d) => d.expensive);
              if (expensive) {
                let caller: string;
                try {
                  caller = await callerKey(contextValue);
                } catch {
                  // A refused token: the operation's own fields answer UNAUTHENTICATED, before any work.
                  return;
                }
                const tenant = String(argumentValue(expensive.tenant, request.variables) ?? '');
                const share = shares.enter(caller, tenant);
                if (typeof share === 'string') {
                  throw new GraphQLError(workRefusalText(share, tenant), {
                    extensions: { code: 'TOO_MANY_REQUESTS', http: { status: 429, headers: new HeaderMap([['retry-after', String(BUSY_RETRY_AFTER_S)]]) } },
                  });
                }
                graphqlShares.set(contextValue, share);
              }
            },
            async willSendResponse({ contextValue }) {
              graphqlShares.get(contextValue)?.release();
            },
            async didEncounterErrors({ contextValue, errors }) {
              // Logged with the request's id: what a resolver threw that is not one of our coded GraphQL errors.
              for (const error of errors) {
                const cause = unwrapResolverError(error);
                if (cause !== error && !(cause instanceof GraphQLError) && !isClientGone(cause)) contextValue.log.error({ err: cause, path: error.path }, 'GraphQL operation failed');
              }
            },
          };
        },
      },
    ],
  });
  await apollo.start();
  const graphql = apolloKoa(apollo, contextOf);
  /**
   * Reads a GraphQL request's JSON body and refuses what would overflow the stack later: variables nested
   * thousands deep (found while the body is read, before it is parsed: `readJsonBody`), or a document whose
   * brackets nest that deep (graphql-js parses recursively). The body is `{query, variables}`: the variables' values
   * start two levels down; batches (a JSON array) are off, so an array is refused at its first byte. A body of another
   * media type is left to Apollo, which refuses it.
   */
  const readGraphqlRequest = async (ctx: Koa.Context): Promise<void> => {
    if (ctx.method === 'POST' && ctx.is('application/json')) {
      const charset = ctx.request.charset;
      if (charset && charset.toLowerCase() !== 'utf-8' && charset.toLowerCase() !== 'utf8') throw new FacadeError(415, `JSON bodies must be UTF-8, got charset '${charset}'.`);
      // The caller is known before its body is read (rest-facade/admission.ts): a refused token is answered without
      // reading it; without a token (only showcase tenants answer) a body is held to REQUEST_BODY_LIMIT.
      const context = contextOf(ctx);
      let caller: unknown;
      try {
        caller = await context.principal();
      } catch (err) {
        throw facadeErrorOf(err, context);
      }
      const limits = caller ? admission.documentBody : admission.requestBody;
      try {
        ctx.request.body = await readJsonBody(ctx.req, {
          limit: limits.bytes,
          maxValues: limits.values,
          maxDepth: MAX_JSON_DEPTH + 2,
          shape: 'object',
          tooDeep: `The request nests deeper than ${MAX_JSON_DEPTH} levels.`,
        });
      } catch (err) {
        if (err instanceof BodyError) throw new FacadeError(err.status, err.status === 400 ? `The body cannot be read: ${err.message}` : err.message);
        throw err;
      }
    }
    const body = ctx.request.body as { query?: unknown } | undefined;
    if ([ctx.query.query, body?.query].some((d) => typeof d === 'string' && nestsTooDeep(d))) {
      throw new FacadeError(400, `The GraphQL document nests deeper than ${MAX_TEXT_DEPTH} levels.`);
    }
  };
  koa.use(async (ctx, next) => {
    if (ctx.path !== '/graphql') return next();
    if (ctx.method !== 'GET' && ctx.method !== 'POST') {
      ctx.set('Allow', 'GET, POST');
      throw new FacadeError(405, `Method ${ctx.method} is not allowed on /graphql.`);
    }
    // Browsers asking for the endpoint get the playground.
    if (ctx.method === 'GET' && ctx.accepts('text/html', 'application/json') === 'text/html') return ctx.redirect('/graphiql');
    try {
      await readGraphqlRequest(ctx);
    } catch (err) {
      // A refused token is a GraphQL error, as the operation's fields would have answered it (GraphQL clients read
      // `errors`); the other refusals of the body are Result objects, as before.
      if (err instanceof FacadeError && err.status === 401) {
        ctx.status = 401;
        ctx.set('WWW-Authenticate', 'Bearer realm="asset-platform"');
        ctx.body = { errors: [{ message: err.message, extensions: { code: 'UNAUTHENTICATED' } }] };
        return;
      }
      throw err;
    }
    return graphql(ctx, next);
  });

  const tenantApi = createTenantApiRouter({
    schema,
    contextOf,
    apiUrlOf: tenantApiUrlOf,
    admission,
    uploadLimitBytes: config.files.uploadLimitBytes,
    tenantHostSuffix: config.tenantHostSuffix,
  });
  // The file repository (`{tenant_url}/sphere/api/v1.0/files`, and deprecated at `/api/v3.0/files`): streamed bodies.
  const fileApi = createFileRouter({
    schema,
    contextOf,
    uploadLimitBytes: config.files.uploadLimitBytes,
    admission,
    tenantHostSuffix: config.tenantHostSuffix,
  });
  const managementApi = createManagementApiRouter({ schema, contextOf, manageUrl: config.manageUrl, admission });

  // The OpenAPI documents of both APIs, generated from what their routers registered, and the REST API console.
  const openApi = createOpenApiRouter({
    managementRouter: managementApi,
    managementRoutes,
    managementBase: MANAGEMENT_API_BASE,
    tenantRouters: [tenantApi, fileApi],
    tenantBases: API_VERSIONS.map((version) => `/api/${version}`),
    manageUrl: config.manageUrl,
    tenantUrlOf: (tenant) => services.tenants.urlOf(tenant),
    tenantHostSuffix: config.tenantHostSuffix,
    graphqlSchema: schema,
    mqttUrl: config.events.mqttUrl,
  });
  // Every route takes the query parameters its operation in those documents declares, and refuses any other.
  for (const router of [fileApi, tenantApi, managementApi]) guardQueries(router, openApi.declaredQuery);
  koa.use(openApi.router.routes());
  koa.use(
    createApiConsoleRouter({
      manageUrl: config.manageUrl,
      publicUrl: config.publicUrl,
      tenantApiPathTemplate: `tenants/__TENANT__/api/${API_VERSION}`,
      login: services.identity.loginFor(CONSOLE_CLIENT_ID),
      connectSources: consoleConnectSources(config),
      soleTenant: () => services.tenants.soleName(),
    }).routes(),
  );

  // What no route takes because an identifier in it is standard base64 (a '/' splits its segment): 400, saying so.
  koa.use(identifierFallback([fileApi, tenantApi]));
  koa.use(routesBySegment(fileApi));
  koa.use(fileApi.allowedMethods());

  koa.use(routesBySegment(tenantApi));
  koa.use(tenantApi.allowedMethods());
  // Writes to the implicit registries and discovery, and an instance's submodel registry: Results saying why not.
  for (const version of API_VERSIONS) koa.use(registryRefusals(`/api/${version}`, Boolean(config.tenantHostSuffix)));

  koa.use(managementApi.routes());
  koa.use(managementApi.allowedMethods());

  const viaKoa = koa.callback();
  /**
   * A hot read (rest-facade/hot-reads.ts: a GET by id, from the read cache or in one statement from the database, or a
   * cached list page) is answered here, before Koa: the same bytes and headers as through Koa (the request id, the
   * baseline headers, ETag, type, length; for a document that is not there, the route's 404 Result), the caller
   * admitted by the same rule, written in one `end`; Koa's per-request context, middleware chain and response handling,
   * the router and the GraphQL execution of the route cost more than the rest of such a request. Everything else, and
   * every hot read that is refused or left to its route, goes on to Koa with what was begun here.
   * With CORS on, every request goes through Koa, whose CORS middleware answers `Vary: Origin` on all of them.
   */
  const answerHotRead = async (req: IncomingMessage, res: ServerResponse, read: HotRead): Promise<void> => {
    const begun = begin(req);
    const context = createContext(services, begun.requestId, () => begun.log, req.headers.authorization || undefined, undefined, METAMODEL_OF[read.version]);
    // Under the request's client-gone signal, as in Koa (the same signal, made only if a statement asks for it): its
    // statements are the request's, and a database that failed it here is not asked again by its route
    // (db/answer-watch.ts).
    const answer = await whileClientHere(res, () => withReadBudget(config.responseLimitBytes, () => answerHot(read, context, admitReader)));
    // A 404 is answered here only for a request without a body left to read (Koa's error handling reads and drops one).
    if (!answer || ('absent' in answer && !req.complete)) {
      handedOver.set(req, { ...begun, context });
      return viaKoa(req, res);
    }
    const headers: OutgoingHttpHeaders = { 'X-Request-Id': begun.requestId, ...BASELINE_HEADERS };
    let status = 200;
    let text: string;
    if ('absent' in answer) {
      // The Result the route's error handling answers for it.
      status = 404;
      text = JSON.stringify(resultOf(404, [answer.absent], begun.requestId));
    } else {
      text = answer.text;
      if (answer.etag !== undefined) headers.ETag = answer.etag;
    }
    headers['Content-Type'] = 'application/json; charset=utf-8';
    headers['Content-Length'] = Buffer.byteLength(text);
    res.writeHead(status, headers);
    res.end(text);
    if (requestLogged) {
      const line = requestLine('GET', req.url ?? '', status, begun.started, clients.of(req));
      // As Koa's log line of a refusal says it (`refusal`).
      if ('absent' in answer) Object.assign(line, { reason: answer.absent.slice(0, 300), tenant: read.tenant, subject: context.subject });
      begun.log.info(line, 'request');
    }
  };
  const handler: RequestListener = (req, res) => {
    const read = config.corsOrigins ? undefined : hotReadOf(req);
    if (!read) return viaKoa(req, res);
    answerHotRead(req, res, read).catch((err: unknown) => {
      // Nothing above throws by design; should it, the request must still be answered.
      log.error({ err }, 'hot read failed');
      if (!res.headersSent) viaKoa(req, res);
      else res.destroy();
    });
  };
  return { koa, handler, apollo, entryPoints: links };
}

/** What the start of a request settled: when it began, its id and its log; its GraphQL context, once built. */
interface Begun {
  started: bigint;
  requestId: string;
  log: Logger;
  context?: Context;
}

/** The log line of a request (LOG_LEVEL info). */
function requestLine(method: string, url: string, status: number, started: bigint, client: string): Record<string, unknown> {
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  return { method, url, status, ms: Math.round(ms * 10) / 10, client };
}

/** The request headers cross-origin pages may send, and the response headers they may read. */
const CORS_ALLOW_HEADERS = ['Authorization', 'Content-Type', 'If-Match', 'If-None-Match', 'X-Request-Id'];
const CORS_EXPOSE_HEADERS = ['ETag', 'Location', 'X-Request-Id', 'Retry-After', 'WWW-Authenticate'];

/** Echoes an allowed `Origin` (any, with `*`); other origins get no CORS headers at all. No cookies are involved. */
function corsMiddleware(origins: string[] | '*'): Koa.Middleware {
  const allowed = origins === '*' ? undefined : new Set(origins);
  return cors({
    origin: (ctx) => {
      const origin = ctx.get('Origin');
      if (!origin) return '';
      return !allowed || allowed.has(origin) ? origin : '';
    },
    allowMethods: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'],
    allowHeaders: CORS_ALLOW_HEADERS,
    exposeHeaders: CORS_EXPOSE_HEADERS,
    maxAge: 600,
  });
}

/** Where the console may send requests: the tenant APIs, whether path-based or on tenant hosts. */
function consoleConnectSources(config: Config): string[] {
  const publicUrl = new URL(config.publicUrl);
  const sources = [publicUrl.origin];
  if (config.tenantHostSuffix) sources.push(`${publicUrl.protocol}//*.${config.tenantHostSuffix}${publicUrl.port ? `:${publicUrl.port}` : ''}`);
  return sources;
}

/** How long the rest of a refused request's body is read and dropped after the answer, before the connection closes. */
const LINGER_MS = 30_000;

/**
 * After the answer to a request whose body was not all read: what the client still sends is read and dropped, at the
 * pace `dropping` allows all refused bodies together, and the connection closes at the latest `LINGER_MS` after the
 * answer if the body has not ended by then. An answer that closes the connection
 * (`Connection: close`, asked by the client or set by the route) half-closes it: Node would destroy the socket
 * right after the answer, and the kernel answers bytes that arrive on a closed socket with a reset, which discards
 * the unread answer at the client and fails its send with EPIPE. Here the answer goes with a FIN, the client's bytes
 * are still read, and the connection closes when the client has sent everything (or at the bound).
 */
function lingerAfterRefusal(req: Koa.Context['req'], res: Koa.Context['res'], dropping: DropRate): void {
  const socket = req.socket as typeof req.socket & { destroySoon?: () => void };
  // Closes the connection `LINGER_MS` from now; the function it answers calls that off (a kept-alive connection
  // carries many requests: nothing of this one stays on its socket once its body has ended).
  const closeAtBound = (unlessEnded = false) => {
    const forget = () => {
      clearTimeout(bound);
      socket.off('close', forget);
    };
    const bound = setTimeout(() => {
      socket.off('close', forget);
      // A body that has ended leaves a kept-alive connection to the requests after it.
      if (!(unlessEnded && req.complete)) socket.destroy();
    }, LINGER_MS);
    bound.unref();
    socket.once('close', forget);
    return forget;
  };
  // Node's own close after a closing answer (called before the 'finish' listeners below), for this answer only.
  socket.destroySoon = function halfClose() {
    socket.end();
    closeAtBound();
  };
  // Read from now on (before the answer: a body nobody reads when its answer is done is dropped by Node itself, at
  // whatever pace the client sends, out of reach of `dropping`).
  dropping.follow(req);
  res.once('finish', () => {
    Reflect.deleteProperty(socket, 'destroySoon');
    if (!req.complete) req.once('end', closeAtBound(true));
  });
}

/**
 * The pace at which the rest of refused bodies is read and dropped: `rate` bytes a second for all of them together,
 * with bursts of a tenth of a second. Read at the pace the client sends, three clients sending 60 MB bodies without a
 * token had the server read some 180 MB a second; every chunk read is a buffer, and their memory set off a full
 * garbage collection several times a second (8 to 13 ms each), which held every other request. A body over its
 * share is paused (the client's sending waits on TCP's flow control) until the share has refilled.
 */
class DropRate {
  private tokens: number;
  private at = performance.now();

  constructor(private readonly rate: number) {
    this.tokens = rate / 10;
  }

  /** Reads and drops the rest of `req`, at its share of the pace. */
  follow(req: Koa.Context['req']): void {
    req.on('data', (chunk: Buffer) => {
      const now = performance.now();
      this.tokens = Math.min(this.rate / 10, this.tokens + ((now - this.at) / 1000) * this.rate) - chunk.length;
      this.at = now;
      if (this.tokens >= 0 || req.isPaused()) return;
      req.pause();
      setTimeout(() => req.resume(), Math.ceil((-this.tokens / this.rate) * 1000)).unref();
    });
    req.resume();
  }
}

function errorResponse(err: unknown): { status: number; messages: string[] } {
  if (err instanceof FacadeError) return { status: err.status, messages: err.messages };
  // Work stopped because its client went (a statement cancelled for it): no fault of the server's.
  if (isClientGone(err)) return { status: 400, messages: [new ClientGoneError().message] };
  if (isDatabaseUnavailable(err) || isLockTimeout(err)) return { status: 503, messages: [unavailableText(err)] };
  const e = err as { status?: number; expose?: boolean; message?: string };
  // Errors from Koa and its middleware carry a client status and a safe message.
  if (typeof e.status === 'number' && e.status >= 400 && e.status < 500) {
    return { status: e.status, messages: [e.expose !== false && e.message ? e.message : 'Bad request.'] };
  }
  return { status: 500, messages: ['Internal server error.'] };
}
