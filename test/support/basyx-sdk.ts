import type { jsonization } from '@aas-core-works/aas-core3.0-typescript';
import type * as Sdk from 'basyx-typescript-sdk';
import { expect } from 'vitest';
import type { TestServer } from './server';

/*
 * The Eclipse BaSyx TypeScript SDK (`basyx-typescript-sdk` 1.0.2) as the BaSyx e2e tests (test/e2e/basyx-*.test.ts)
 * use it: loaded, pointed at a server with every exchange recorded, its outcomes unwrapped.
 *
 * Why `require` and not `import` for the SDK: vitest hands `import 'basyx-typescript-sdk'` to Node's own ESM
 * loader (the package lives in node_modules), which picks the SDK's `bundle/index.mjs`; that bundle imports the
 * ESM build of `@aas-core-works/aas-core3.0-typescript`, whose files use extensionless relative imports, and Node
 * refuses it ("Cannot find module .../dist/lib/esm/common"). The CommonJS bundle (`bundle/index.cjs`, the
 * `require` condition) loads the metamodel's CommonJS build, which works. vitest gives every module it runs a
 * `require` (Node's `createRequire` for the file), so we take the SDK through it; the `import type` line gives
 * the typechecker the SDK's published declarations and is erased at run time.
 *
 * The SDK's bundle carries its own inlined copy of the metamodel classes and sets the prototype of everything it
 * returns to those copies, so `instanceof` against the package's classes is false whichever way either is loaded.
 * The tests therefore compare what they sent with what came back as AAS JSON (`jsonization.toJsonable`, which
 * only calls the objects' own methods) and field by field.
 */
export const sdk = require('basyx-typescript-sdk') as typeof Sdk;

/** A Result of any of the SDK's services (they are alike: the server's `messages`). */
type Result =
  | Sdk.AasRepositoryService.Result
  | Sdk.SubmodelRepositoryService.Result
  | Sdk.ConceptDescriptionRepositoryService.Result
  | Sdk.AasxFileService.Result
  | Sdk.AasRegistryService.Result
  | Sdk.SubmodelRegistryService.Result
  | Sdk.AasDiscoveryService.Result;

/** What a client class's method answers: the data, or the server's Result. */
export type Outcome<T> = { success: true; data: T } | { success: false; error: Result };

/** What went over the wire, for assertions on the server's own bytes rather than the SDK's reading of them. */
export interface Exchange {
  method: string;
  url: string;
  status: number;
  /** The JSON body; undefined for any other content type. */
  body: unknown;
  contentType: string | null;
  disposition: string | null;
  location: string | null;
  etag: string | null;
}

/**
 * basyx-typescript-sdk 1.0.2 reads the page cursor from `pagingMetadata` (its generated client runs without
 * runtime mapping, `withoutRuntimeChecks=true`), but the AAS API V3.0 `PagedResult` schema names the member
 * `paging_metadata` (Part2-API-Schemas/openapi.yaml, PagedResult), which is what this server sends. Unaided, the
 * SDK's `pagedResult` is always undefined and no client could page. This middleware is the SDK's own extension
 * point (`Configuration.middleware`); it adds the camel-case alias the SDK expects, leaving the spec member in
 * place, and it records every exchange so the tests can also check the wire format itself.
 */
function recordingMiddleware(log: Exchange[]): Sdk.Middleware {
  return {
    async post({ url, init, response }) {
      const contentType = response.headers.get('content-type');
      const isJson = contentType?.includes('application/json') ?? false;
      const body: unknown = isJson ? await response.clone().json() : undefined;
      log.push({
        method: init.method ?? 'GET',
        url,
        status: response.status,
        body,
        contentType,
        disposition: response.headers.get('content-disposition'),
        location: response.headers.get('location'),
        etag: response.headers.get('etag'),
      });
      if (!isJson || typeof body !== 'object' || body === null || !('paging_metadata' in body) || 'pagingMetadata' in body) {
        return response;
      }
      const aliased = { ...body, pagingMetadata: (body as { paging_metadata: unknown }).paging_metadata };
      return new Response(JSON.stringify(aliased), { status: response.status, statusText: response.statusText, headers: response.headers });
    },
  };
}

/** An SDK configuration for the service at `basePath` that records into `wire`; `headers` go with every request. */
export function recordingConfiguration(basePath: string, wire: Exchange[], headers?: Record<string, string>): Sdk.Configuration {
  return new sdk.Configuration({ basePath, middleware: [recordingMiddleware(wire)], ...(headers ? { headers } : {}) });
}

/** A fresh tenant of `server` (isolated data) and an SDK configuration at its AAS API, with its own wire log. */
export async function tenantSdk(server: TestServer): Promise<{ tenant: string; api: string; configuration: Sdk.Configuration; wire: Exchange[] }> {
  const tenant = (await server.createTenant()).name;
  const api = server.api(tenant);
  const wire: Exchange[] = [];
  return { tenant, api, configuration: recordingConfiguration(api, wire), wire };
}

/** The data of a successful SDK call; a failure fails the test with the server's Result messages. */
export function ok<T>(outcome: Outcome<T>): T {
  if (!outcome.success) expect.fail(`expected success, got ${JSON.stringify(outcome.error)}`);
  return outcome.data;
}

/**
 * The first Result message of a failed SDK call (the SDK passes the server's Result through): its code and text.
 * The server marks the messages of 5xx answers `Exception`, all others `Error`.
 */
export function failure(outcome: Outcome<unknown>): { code?: string; text?: string } {
  if (outcome.success) expect.fail(`expected a failure, got ${JSON.stringify(outcome.data)}`);
  const message = outcome.error.messages?.[0];
  expect(message?.messageType).toBe(Number(message?.code) >= 500 ? 'Exception' : 'Error');
  return { code: message?.code, text: message?.text };
}

/** The Result code of a failed SDK call. */
export const failureCode = (outcome: Outcome<unknown>): string | undefined => failure(outcome).code;

/** The HTTP status a call of a generated API failed with (they throw ResponseError), and its Result's first code and text. */
export async function generatedFailure(call: Promise<unknown>): Promise<{ status: number; code: unknown; text: string }> {
  try {
    await call;
  } catch (err) {
    if (!(err instanceof sdk.ResponseError)) throw err;
    const body = (await err.response.json()) as { messages: { code: unknown; text: string }[] };
    return { status: err.response.status, code: body.messages[0].code, text: body.messages[0].text };
  }
  return expect.fail('expected the call to fail');
}

/** What a jsonization `...FromJsonable` answers: the instance, or why the JSON is none. */
export type Parsed<T> = { error: { message: string } | null; mustValue(): T };

/** A test fixture's JSON as a metamodel instance (`parse`: a jsonization `...FromJsonable`); a parse error is the fixture's. */
export function fixture<T>(parse: (json: jsonization.JsonValue) => Parsed<T>, json: unknown): T {
  const parsed = parse(json as jsonization.JsonValue);
  if (parsed.error !== null) throw new Error(`fixture: ${parsed.error.message}`);
  return parsed.mustValue();
}
