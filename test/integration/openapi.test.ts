import vm from 'node:vm';
import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { newOrganization } from '../support/management';
import { MANAGEMENT_API_BASE, createManagementApiRouter } from '../../rest-facade/management-api';
import { managementRoutes } from '../../rest-facade/management';
import { createFileRouter } from '../../rest-facade/files';
import { createTenantApiRouter } from '../../rest-facade/tenant-api';
import { MAX_ATTRIBUTES, MAX_ATTRIBUTE_LENGTH, MAX_DISPLAY_NAME_LENGTH } from '../../src/files/metadata';
import { VDI_2770_CLASSES } from '../../src/common/vdi2770';
import { buildAppSchema } from '../../src/graphql/schema';
import { minimalPackage, zipOf } from '../support/aasx-package';
import { enc, sendFile } from '../support/file-suite';
import { TestServer, hostGet, json, sampleShell, startTestServer } from '../support/server';
import { WorkShares } from '../../src/common/work-shares';

/**
 * The OpenAPI documents (Management API, a tenant's AAS API), the REST API console that shows them, and CORS.
 * The route coverage test holds the documents to what the routers register, both ways.
 */

let server: TestServer;
let cors: TestServer;
const ORIGIN = 'http://ui.example.test';

beforeAll(async () => {
  server = await startTestServer(inject('databaseUrl'));
  cors = await startTestServer(inject('databaseUrl'), { corsOrigins: [ORIGIN] });
});
afterAll(async () => {
  await server?.close();
  await cors?.close();
});

const get = (path: string, headers: Record<string, string> = {}) => fetch(new URL(path, server.url), { headers, redirect: 'manual' });
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Doc = any;

async function validate(doc: Doc): Promise<void> {
  const result = await new Validator().validate(doc);
  expect(result.errors ?? [], JSON.stringify(result.errors)?.slice(0, 2000)).toEqual([]);
  expect(result.valid).toBe(true);
  expect(doc.openapi).toBe('3.1.0');
}

interface Route {
  method: string;
  path: string;
}

/** What a router registers below `strip` (and not below `except`), as `METHOD /path/{}` with parameter names left out. */
function registered(stack: { path: string | RegExp; methods: string[] }[], strip = '', except?: string): Set<string> {
  const out = new Set<string>();
  for (const layer of stack) {
    if (typeof layer.path !== 'string' || !layer.path.startsWith(strip)) continue;
    if (except !== undefined && layer.path.startsWith(except)) continue;
    for (const method of layer.methods) if (method !== 'HEAD') out.add(`${method} ${layer.path.slice(strip.length).replace(/:[A-Za-z0-9_]+/g, '{}')}`);
  }
  return out;
}

function documented(doc: Doc): Route[] {
  const routes: Route[] = [];
  for (const [path, item] of Object.entries(doc.paths as Record<string, Record<string, unknown>>)) {
    for (const method of Object.keys(item)) if (['get', 'put', 'post', 'patch', 'delete'].includes(method)) routes.push({ method: method.toUpperCase(), path });
  }
  return routes;
}
const shape = (r: Route) => `${r.method} ${r.path.replace(/\{[^}]+\}/g, '{}')}`;

/** The documented operations with their paths below `root`: a path's own `servers` (the platform's services) win over the document's. */
function documentedBelow(doc: Doc, root: string): (Route & { operation: Doc })[] {
  return documented(doc).map((route) => {
    const url = (doc.paths[route.path].servers ?? doc.servers)[0].url + route.path;
    expect(url.startsWith(`${root}/`), url).toBe(true);
    return { method: route.method, path: url.slice(root.length), operation: doc.paths[route.path][route.method.toLowerCase()] };
  });
}

/**
 * The operations that are only a placeholder (a route no specification and no description of this server's
 * covers), as `METHOD /path/{}` below the tenant URL. A route gets one when it is served but nobody described it.
 */
const UNDESCRIBED = ['GET /api/v3.0/shells/{}/submodels'];

/** The Management API's GETs of no single record that are no paged list. */
const UNPAGED = [
  '/me',
  '/api/v1/me',
  '/api/v1/organizations/{organizationId}/roles',
  '/api/v1/organizations/{organizationId}/cloud/roles',
  '/api/v1/organizations/{organizationId}/principals/{principalType}/{principalId}/roles',
];

/** A request to a documented operation, with made-up parameters: whatever it answers, it must not be a routing failure. */
async function expectServed(base: string, route: Route): Promise<void> {
  const id = Buffer.from('urn:openapi:nothing').toString('base64url');
  const path = route.path.replace(/\{([^}]+)\}/g, (_, name: string) => (name === 'idShortPath' ? 'Prop' : id));
  const body = ['POST', 'PUT', 'PATCH'].includes(route.method) ? '{}' : undefined;
  const res = await fetch(base + path, { method: route.method, body, headers: body ? { 'content-type': 'application/json' } : {} });
  const text = await res.text();
  expect(text, `${route.method} ${path}`).not.toMatch(/No route for|is not allowed here|is not supported by this server/);
  expect(res.status, `${route.method} ${path}: ${text.slice(0, 200)}`).not.toBe(405);
}


/** Checks a value against the JSON Schema subset the generated documents use ($ref, type, properties, required, items, enum). */
function conforms(value: unknown, schema: Doc, doc: Doc, at = '$'): void {
  if (schema.$ref) return conforms(value, doc.components.schemas[schema.$ref.split('/').pop()], doc, at);
  const types: string[] = schema.type === undefined ? [] : [schema.type].flat();
  const actual = value === null ? 'null' : Array.isArray(value) ? 'array' : Number.isInteger(value) ? 'integer' : typeof value;
  if (types.length) expect(types.includes(actual) || (actual === 'integer' && types.includes('number')), `${at}: ${actual} is not ${types}`).toBe(true);
  if (schema.enum && value !== null) expect(schema.enum, at).toContain(value);
  if (actual === 'array' && schema.items) (value as unknown[]).forEach((v, i) => conforms(v, schema.items, doc, `${at}[${i}]`));
  if (actual === 'object' && schema.properties) {
    for (const key of schema.required ?? []) expect(value, `${at}.${key} is required`).toHaveProperty(key);
    for (const [key, v] of Object.entries(value as object)) {
      expect(schema.properties, `${at}.${key} is not documented`).toHaveProperty(key);
      conforms(v, schema.properties[key], doc, `${at}.${key}`);
    }
  }
}

describe('OpenAPI documents', () => {
  it('serves the Management API document without a token: valid OpenAPI 3.1, both security schemes, Result errors', async () => {
    const res = await get('/api/v1/openapi.json');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    const doc: Doc = await res.json();
    await validate(doc);
    expect(doc.servers[0].url).toBe(server.url);
    expect(doc.info.description).toMatch(/README/);
    expect(doc.components.securitySchemes.bearer).toMatchObject({ type: 'http', scheme: 'bearer', bearerFormat: 'JWT' });
    const flows = doc.components.securitySchemes.oauth2.flows;
    expect(flows.authorizationCode).toMatchObject({ authorizationUrl: `${server.url}/oidc/auth`, tokenUrl: `${server.url}/oidc/token` });
    expect(flows.clientCredentials.tokenUrl).toBe(`${server.url}/oidc/token`);
    expect(Object.keys(flows.authorizationCode.scopes)).toEqual(['openid', 'api_access']);
    // Client credentials (service accounts) have the API's scope only: the identity service refuses `openid` there.
    expect(Object.keys(flows.clientCredentials.scopes)).toEqual(['api_access']);
    expect(doc.components.schemas.Result.properties.messages.items.$ref).toBe('#/components/schemas/Message');

    for (const route of documented(doc)) {
      const op = doc.paths[route.path][route.method.toLowerCase()];
      expect(op.summary, route.path).toBeTruthy();
      expect(op.tags).toHaveLength(1);
      expect(op.responses['404'].content['application/json'].schema.$ref).toBe('#/components/schemas/Result');
      const names = (op.parameters ?? []).map((p: { name: string }) => p.name);
      // The lists are paged; `/me`, the role lists (a fixed handful) and a principal's roles (one record) are not, and take no paging parameters.
      const paged = route.method === 'GET' && !route.path.endsWith('}') && !UNPAGED.includes(route.path);
      if (paged) expect(names, route.path).toEqual(expect.arrayContaining(['limit', 'cursor']));
      else expect(names, route.path).not.toContain('cursor');
      if (['PUT', 'PATCH', 'DELETE'].includes(route.method)) expect(names, route.path).toContain('If-Match');
      if (op.security) expect(op.security).toEqual([]);
    }
  });

  it('describes Management API bodies and answers from the GraphQL operations, and the real answers match them', async () => {
    const doc: Doc = await (await get('/api/v1/openapi.json')).json();
    const create = doc.paths['/api/v1/organizations/{organizationId}/tenants'].post;
    expect(create.requestBody.content['application/json'].schema).toEqual({ $ref: '#/components/schemas/TenantInput' });
    expect(doc.components.schemas.TenantInput).toMatchObject({ type: 'object', required: ['name'], additionalProperties: false });
    expect(Object.keys(doc.components.schemas.TenantInput.properties)).toEqual(['name', 'friendlyName', 'tag', 'showcase', 'eventsEnabled']);
    expect(doc.paths['/api/v1/organizations/{organizationId}/tenants/{tenantId}'].delete.responses['204']).toBeDefined();

    // Real answers conform to what is documented (the etag is in the header, not the body).
    const { owner, organization } = await newOrganization(server);
    const successOf = (path: string, method: string) => Object.keys(doc.paths[path][method].responses).find((status) => /^2\d\d$/.test(status))!;
    const schemaOf = (path: string, method: string) => doc.paths[path][method].responses[successOf(path, method)].content['application/json'].schema;
    const tenant = await owner.call('POST', `/organizations/${organization.id}/tenants`, { name: `oa-${Date.now().toString(36)}` });
    // The documented status is the one answered.
    expect(tenant.status).toBe(201);
    expect(successOf('/api/v1/organizations/{organizationId}/tenants', 'post')).toBe('201');
    expect(successOf('/api/v1/organizations/{organizationId}/tenants', 'get')).toBe('200');
    conforms(tenant.body, schemaOf('/api/v1/organizations/{organizationId}/tenants', 'post'), doc);
    expect(schemaOf('/api/v1/organizations/{organizationId}/tenants', 'post').properties).not.toHaveProperty('etag');
    conforms((await owner.call('GET', `/organizations/${organization.id}/tenants`)).body, schemaOf('/api/v1/organizations/{organizationId}/tenants', 'get'), doc);
    conforms((await owner.call('GET', '/me')).body, schemaOf('/api/v1/me', 'get'), doc);
    conforms((await owner.call('GET', `/organizations/${organization.id}/roles`)).body, schemaOf('/api/v1/organizations/{organizationId}/roles', 'get'), doc);
    const sa = await owner.call('POST', `/organizations/${organization.id}/service-accounts`, { name: 'documented' });
    const secret = await owner.call('POST', `/organizations/${organization.id}/service-accounts/${sa.body.id}/secrets`);
    conforms(secret.body, schemaOf('/api/v1/organizations/{organizationId}/service-accounts/{serviceAccountId}/secrets', 'post'), doc);
  });

  it('names the status of every Management API answer (no 2XX range, which Swagger UI shows as "Undocumented")', async () => {
    const doc: Doc = await (await get('/api/v1/openapi.json')).json();
    // What each route's `respond` answers, given anything at all as its data.
    const anything: Doc = new Proxy(() => undefined, {
      get: (_target, key) => (key === Symbol.toPrimitive ? () => 'x' : key === 'then' ? undefined : anything),
      apply: () => anything,
      // Spread (`{ ...page }`) copies the fields a page has.
      ownKeys: () => ['result', 'pagingMetadata'],
      getOwnPropertyDescriptor: () => ({ configurable: true, enumerable: true, value: anything }),
    });
    let checked = 0;
    for (const spec of managementRoutes) {
      const path = `${MANAGEMENT_API_BASE}${spec.path}`.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
      const operation = doc.paths[path][spec.method.toLowerCase()];
      const documented = Object.keys(operation.responses).filter((status) => !/^[45]\d\d$/.test(status));
      expect(documented, `${spec.method} ${path}`).toEqual([String(spec.respond(anything, anything).status)]);
      checked++;
    }
    expect(checked).toBeGreaterThan(50);
    expect(JSON.stringify(doc)).not.toContain('"2XX"');
  });

  it("serves a tenant's AAS API document without a token, with the tenant's server URL, bundled (no external $ref), valid OpenAPI 3.1", async () => {
    const tenant = await server.createTenant({ showcase: false });
    const res = await get(`/tenants/${tenant.name}/api/v3.0/openapi.json`);
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(text).not.toMatch(/"\$ref":"(?!#)/);
    const doc = JSON.parse(text);
    await validate(doc);
    expect(doc.servers).toEqual([{ url: server.api(tenant.name) }]);
    // The official operation texts, with their schemas.
    expect(doc.paths['/shells'].get.operationId).toBe('GetAllAssetAdministrationShells');
    expect(doc.paths['/shells'].get.responses['200'].content['application/json'].schema.$ref).toBe('#/components/schemas/GetAssetAdministrationShellsResult');
    expect(doc.components.schemas.AssetAdministrationShell).toBeDefined();
    expect(doc.components.schemas.Result).toBeDefined();
    expect(Object.keys(doc.components.securitySchemes).sort()).toEqual(['bearer', 'oauth2']);
    // Every $ref points into the document.
    for (const [, ref] of text.matchAll(/"\$ref":"([^"]*)"/g)) {
      const target = ref.slice(2).split('/').reduce((node: Doc, key: string) => node?.[key], doc);
      expect(target, ref).toBeDefined();
    }
    // A made-up tenant gets the same document: it describes, and reveals nothing about which tenants exist.
    const other = await get('/tenants/no-such-tenant/api/v3.0/openapi.json');
    expect(other.status).toBe(200);
    expect(((await other.json()) as Doc).servers[0].url).toBe(server.api('no-such-tenant'));
  });

  it('describes the file repository at both locations (the former deprecated): the tfp in either encoding, multipart uploads, ranges, ETags, the metadata rules', async () => {
    const tenant = await server.createTenant({ showcase: false });
    const doc: Doc = await (await get(`/tenants/${tenant.name}/api/v3.0/openapi.json`)).json();
    const resolve = (node: Doc) => (node.$ref ? node.$ref.slice(2).split('/').reduce((n: Doc, key: string) => n[key], doc) : node);
    const FILES = '/sphere/api/v1.0';
    for (const path of ['/files', '/files/{tfp}', '/files/{tfp}/metadata']) {
      const now = doc.paths[`${FILES}${path}`];
      const former = doc.paths[path];
      // The platform's own services are beside the AAS API: below the tenant URL, not below /api/v3.0.
      expect(now.servers.map((s: Doc) => s.url)).toEqual([`${server.url}/tenants/${tenant.name}`]);
      expect(former.servers).toBeUndefined();
      const methods = Object.keys(now).filter((key) => key !== 'servers');
      expect(Object.keys(former)).toEqual(methods);
      for (const method of methods) {
        const [op, old] = [now[method], former[method]];
        expect(op.deprecated, `${method} ${path}`).toBeUndefined();
        expect(old.deprecated, `${method} ${path}`).toBe(true);
        expect(old.parameters).toEqual(op.parameters);
        expect(old.requestBody).toEqual(op.requestBody);
        expect(Object.keys(old.responses)).toEqual(Object.keys(op.responses));
        for (const [status, response] of Object.entries(old.responses as Record<string, Doc>)) {
          expect(Object.keys(response.headers ?? {}), `${method} ${path} ${status}`).toEqual(expect.arrayContaining(['Deprecation', 'Link']));
        }
        for (const [status, response] of Object.entries(op.responses as Record<string, Doc>)) {
          if (/^[45]|default/.test(status)) expect(resolve(response).content['application/json'].schema, `${method} ${path} ${status}`).toEqual({ $ref: '#/components/schemas/Result' });
        }
        if (path !== '/files') expect(op.parameters[0]).toEqual({ $ref: '#/components/parameters/Tfp' });
      }
    }
    const tfp = doc.components.parameters.Tfp;
    expect(tfp).toMatchObject({ name: 'tfp', in: 'path', required: true });
    expect(tfp.description).toMatch(/percent-encoded/);
    expect(tfp.description).toMatch(/BASE64-URL/);

    const list = doc.paths[`${FILES}/files`].get;
    expect(list.parameters.map((p: Doc) => resolve(p).name)).toEqual(['displayName', 'displayNameStartsWith', 'displayNameContains', 'classification', 'contentType', 'fileName', 'attribute', 'limit', 'cursor']);
    expect(list.responses['200'].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/GetStoredFilesResult' });
    const upload = doc.paths[`${FILES}/files`].post;
    const form = upload.requestBody.content['multipart/form-data'].schema;
    expect(form.required).toEqual(['file']);
    expect(Object.keys(form.properties)).toEqual(['file', 'displayName', 'classification', 'attributes']);
    expect(Object.keys(upload.responses)).toEqual(['201', '400', '401', '403', '404', '413', '415', 'default']);
    expect(Object.keys(upload.responses['201'].headers)).toEqual(['Location', 'ETag']);
    const download = doc.paths[`${FILES}/files/{tfp}`].get;
    expect(download.parameters.map((p: Doc) => resolve(p).name)).toEqual(['tfp', 'Range', 'If-Range', 'If-None-Match']);
    expect(Object.keys(download.responses)).toEqual(['200', '206', '304', '400', '401', '404', '416', 'default']);
    expect(Object.keys(download.responses['200'].headers)).toEqual(expect.arrayContaining(['ETag', 'Accept-Ranges', 'Content-Disposition']));
    expect(Object.keys(download.responses['206'].headers)).toEqual(expect.arrayContaining(['Content-Range', 'ETag']));
    expect(Object.keys(download.responses['416'].headers)).toEqual(['Content-Range']);
    const replace = doc.paths[`${FILES}/files/{tfp}`].put;
    expect(Object.keys(replace.requestBody.content['multipart/form-data'].schema.properties)).toEqual(['file']);
    expect(Object.keys(replace.responses)).toEqual(['200', '400', '401', '403', '404', '413', '415', 'default']);
    expect(Object.keys(doc.paths[`${FILES}/files/{tfp}`].delete.responses)).toEqual(['204', '400', '401', '403', '404', 'default']);
    const putMetadata = doc.paths[`${FILES}/files/{tfp}/metadata`].put;
    expect(putMetadata.requestBody.content['application/json'].schema).toEqual({ $ref: '#/components/schemas/StoredFileMetadata' });

    // The metadata rules are the file service's.
    const schemas = doc.components.schemas;
    expect(schemas.Vdi2770ClassId.enum).toEqual(Object.keys(VDI_2770_CLASSES));
    expect(schemas.StoredFileMetadata.properties.attributes.maxItems).toBe(MAX_ATTRIBUTES);
    expect(schemas.StoredFileMetadata.properties.displayName.maxLength).toBe(MAX_DISPLAY_NAME_LENGTH);
    expect(schemas.StoredFile.properties.displayName.maxLength).toBe(MAX_DISPLAY_NAME_LENGTH);
    expect(schemas.FileAttribute.properties.key.maxLength).toBe(MAX_ATTRIBUTE_LENGTH);
    expect(schemas.FileAttribute.properties.value.maxLength).toBe(MAX_ATTRIBUTE_LENGTH);
    expect(form.properties.attributes.contentSchema.maxItems).toBe(MAX_ATTRIBUTES);
  });

  it('the file repository and the AASX import answer what their operations document', async () => {
    const tenant = await server.createTenant({ showcase: true });
    const doc: Doc = await (await get(`/tenants/${tenant.name}/api/v3.0/openapi.json`)).json();
    const tenantUrl = `${server.url}/tenants/${tenant.name}`;
    const files = `${tenantUrl}/sphere/api/v1.0/files`;
    const schemaOf = (path: string, method: string, status: string) => doc.paths[path][method].responses[status].content['application/json'].schema;

    const created = await sendFile(files, Buffer.from('documented'), {
      name: 'manual.pdf',
      type: 'application/pdf',
      fields: { displayName: 'Manual', classification: '03-02', attributes: JSON.stringify([{ key: 'batch', value: '42' }]) },
    });
    expect(created.status).toBe(201);
    const record = await json(created);
    conforms(record, schemaOf('/sphere/api/v1.0/files', 'post', '201'), doc);
    // With every field set, every documented field is there.
    expect(Object.keys(record).sort()).toEqual(Object.keys(doc.components.schemas.StoredFile.properties).sort());
    expect(created.headers.get('location')).toBe(`/tenants/${tenant.name}/sphere/api/v1.0/files/${enc(record.tfp)}`);
    expect(created.headers.get('etag')).toMatch(/^"sha256-[A-Za-z0-9_-]+"$/);

    // The tfp in either encoding the parameter documents.
    const url = `${files}/${enc(record.tfp)}`;
    conforms(await json(fetch(`${files}/${Buffer.from(record.tfp).toString('base64url')}/metadata`)), schemaOf('/sphere/api/v1.0/files/{tfp}/metadata', 'get', '200'), doc);
    conforms(await json(fetch(`${files}?attribute.batch=42&limit=1`)), schemaOf('/sphere/api/v1.0/files', 'get', '200'), doc);
    const put = await fetch(`${url}/metadata`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ displayName: null, classification: '02-04', attributes: [] }) });
    expect(put.status).toBe(200);
    const updated = await json(put);
    conforms(updated, schemaOf('/sphere/api/v1.0/files/{tfp}/metadata', 'put', '200'), doc);
    expect(updated).not.toHaveProperty('displayName');
    const replaced = await sendFile(url, Buffer.from('second'), { method: 'PUT' });
    expect(replaced.status).toBe(200);
    conforms(await json(replaced), schemaOf('/sphere/api/v1.0/files/{tfp}', 'put', '200'), doc);
    const partial = await fetch(url, { headers: { range: 'bytes=0-1' } });
    expect(partial.status).toBe(206);
    expect(partial.headers.get('content-range')).toBe('bytes 0-1/6');
    expect((await fetch(url, { headers: { 'if-none-match': partial.headers.get('etag')! } })).status).toBe(304);

    // The former location: the same answers, with the documented headers, errors included.
    for (const res of [await fetch(`${tenantUrl}/api/v3.0/files/${enc(record.tfp)}/metadata`), await fetch(`${tenantUrl}/api/v3.0/files/nonsense`)]) {
      expect(res.headers.get('deprecation')).toMatch(/^@\d+$/);
      expect(res.headers.get('link')).toMatch(/^<\/tenants\/[^>]+\/sphere\/api\/v1\.0\/files\/[^>]+>; rel="successor-version"$/);
    }
    const bad = await fetch(`${files}/nonsense`);
    expect(bad.status).toBe(400);
    conforms(await json(bad), doc.components.schemas.Result, doc);

    const environment = JSON.stringify({ assetAdministrationShells: [sampleShell(`urn:openapi:${tenant.name}`)], submodels: [] });
    const pkg = new FormData();
    pkg.append('file', new Blob([zipOf(minimalPackage(environment))]), 'documented.aasx');
    const imported = await fetch(`${tenantUrl}/sphere/api/v1.0/import`, { method: 'POST', body: pkg });
    const importedBody = await json(imported);
    expect(imported.status, JSON.stringify(importedBody).slice(0, 300)).toBe(200);
    conforms(importedBody, schemaOf('/sphere/api/v1.0/import', 'post', '200'), doc);
    const upload = new FormData();
    upload.append('file', new Blob([environment], { type: 'application/json' }), 'documented.json');
    const uploaded = await fetch(`${tenantUrl}/api/v3.0/upload?ignore-duplicates=true`, { method: 'POST', body: upload });
    const uploadedBody = await json(uploaded);
    expect(uploaded.status, JSON.stringify(uploadedBody).slice(0, 300)).toBe(200);
    conforms(uploadedBody, schemaOf('/upload', 'post', '200'), doc);
  });

  it('route coverage: every route the routers register is documented with its method, and every documented operation is served', async () => {
    const schema = await buildAppSchema();
    const notUsed = () => {
      throw new Error('not called');
    };
    const limits = { bytes: 1024, values: 1024 };
    const admission = { contextOf: notUsed, admit: notUsed, shares: new WorkShares({ perCaller: 1, perTenant: 1, total: 1 }), documentBody: limits, requestBody: limits };
    const managementRouter = createManagementApiRouter({ schema, contextOf: notUsed, manageUrl: server.url, admission });
    const tenantRouter = createTenantApiRouter({ schema, contextOf: notUsed, apiUrlOf: notUsed, admission, uploadLimitBytes: 1024 });
    const fileRouter = createFileRouter({ schema, contextOf: notUsed, admission, uploadLimitBytes: 1024 });

    const management: Doc = await (await get('/api/v1/openapi.json')).json();
    const managementServed = registered(managementRouter.stack);
    expect(managementServed.size).toBeGreaterThan(0);
    expect(new Set(documented(management).map(shape))).toEqual(managementServed);
    for (const route of documented(management)) await expectServed(server.url, route);

    // The tenant's routes, whichever router serves them (the AAS API, the file repository at both its locations),
    // below the tenant URL.
    const tenant = await server.createTenant({ showcase: true });
    const tenantUrl = `${server.url}/tenants/${tenant.name}`;
    const allServed = registered([...tenantRouter.stack, ...fileRouter.stack], '/tenants/:tenant', '/tenants/:tenant/:instance/');
    const fileRoutes = ['GET /files', 'POST /files', 'GET /files/{}', 'PUT /files/{}', 'DELETE /files/{}', 'GET /files/{}/metadata', 'PUT /files/{}/metadata'];
    for (const base of ['/sphere/api/v1.0', '/api/v3.0']) {
      for (const route of fileRoutes) expect(allServed).toContain(route.replace(' ', ` ${base}`));
    }
    // The deprecated file location is V3.0's only.
    for (const route of fileRoutes) expect(allServed).not.toContain(route.replace(' ', ' /api/v3.1'));
    await server.services.registryInstances.create(tenant, { name: 'oa-registry', kind: 'aas-registry' });
    await server.services.registryInstances.create(tenant, { name: 'oa-discovery', kind: 'discovery' });
    // Each version's document describes the routes below its base and the platform's own (below no version).
    for (const version of ['v3.0', 'v3.1']) {
      const other = version === 'v3.0' ? '/api/v3.1/' : '/api/v3.0/';
      const aas: Doc = await (await get(`/tenants/${tenant.name}/api/${version}/openapi.json`)).json();
      await validate(aas);
      expect(aas.info.version).toBe(version === 'v3.0' ? 'V3.0.4' : 'V3.1.2');
      const tenantServed = new Set([...allServed].filter((route) => !route.includes(` ${other}`)));
      expect(tenantServed.size).toBeGreaterThan(50);
      const tenantDocumented = documentedBelow(aas, tenantUrl);
      expect(new Set(tenantDocumented.map(shape))).toEqual(tenantServed);
      // Served and documented is not enough: a placeholder operation means nobody described the route.
      const placeholders = tenantDocumented.filter((r) => /an addition of this server/.test(r.operation.summary ?? ''));
      expect(placeholders.map(shape)).toEqual(UNDESCRIBED.map((route) => route.replace('/api/v3.0/', `/api/${version}/`)));
      for (const route of tenantDocumented) await expectServed(tenantUrl, route);
      // The implicit registries and discovery are among them, described by the official operations (or this server's own, V3.1's search).
      for (const route of ['GET /lookup/shells', 'POST /lookup/shellsByAssetLink', 'GET /shell-descriptors/{}/submodel-descriptors/{}', 'GET /submodel-descriptors/{}']) {
        expect(tenantServed).toContain(route.replace(' ', ` /api/${version}`));
      }
      expect(tenantDocumented.map(shape)).not.toContain(`POST /api/${version}/shell-descriptors`);
      // The repositories' query endpoints of V3.1, described after V3.1's operations (query-operations.ts).
      const queries = { '/query/shells': 'QueryAssetAdministrationShells', '/query/submodels': 'QuerySubmodels', '/query/concept-descriptions': 'QueryConceptDescriptions' };
      for (const [path, operationId] of Object.entries(queries)) {
        const route = `POST /api/${version}${path}`;
        expect(tenantServed).toContain(route);
        expect(tenantDocumented.find((r) => shape(r) === route)?.operation.operationId, route).toBe(operationId);
      }

      // Explicit registry instances: every route registered below `{tenant_url}/{instanceName}` is in the instance
      // document and the other way round, none a placeholder, each served (an instance of each kind, and one of none).
      const instanceServed = new Set([...registered(tenantRouter.stack, '/tenants/:tenant/:instance')].filter((route) => route.includes(` /api/${version}/`)));
      expect(instanceServed.size).toBeGreaterThan(15);
      for (const route of ['GET /description', 'POST /lookup/shells/{}', 'DELETE /shell-descriptors/{}/submodel-descriptors/{}']) {
        expect(instanceServed).toContain(route.replace(' ', ` /api/${version}`));
      }
      for (const name of ['oa-registry', 'oa-discovery', 'oa-none']) {
        const instanceUrl = `${tenantUrl}/${name}`;
        const doc: Doc = await (await get(`/tenants/${tenant.name}/${name}/api/${version}/openapi.json`)).json();
        await validate(doc);
        expect(doc.servers).toEqual([{ url: `${instanceUrl}/api/${version}` }]);
        const instanceDocumented = documentedBelow(doc, instanceUrl);
        expect(new Set(instanceDocumented.map(shape))).toEqual(instanceServed);
        expect(instanceDocumented.filter((r) => /an addition of this server/.test(r.operation.summary ?? '')).map(shape)).toEqual([]);
        for (const route of instanceDocumented) await expectServed(instanceUrl, route);
      }
    }
    expect(MANAGEMENT_API_BASE).toBe('/api/v1');
  });

  it('serves the tenant document host-based too (TENANT_HOST_SUFFIX)', async () => {
    const hosted = await startTestServer(inject('databaseUrl'), { tenantHostSuffix: 'tenants.test' });
    try {
      const { port } = new URL(hosted.url);
      const res = await hostGet(port, `acme.tenants.test:${port}`, '/api/v3.0/openapi.json');
      expect(res.status).toBe(200);
      expect(JSON.parse(res.body).servers[0].url).toBe(`http://acme.tenants.test:${port}/api/v3.0`);
      const v31 = await hostGet(port, `acme.tenants.test:${port}`, '/api/v3.1/openapi.json');
      expect(v31.status).toBe(200);
      expect(JSON.parse(v31.body).servers[0].url).toBe(`http://acme.tenants.test:${port}/api/v3.1`);
      expect(JSON.parse(v31.body).info.version).toBe('V3.1.2');
      // The routes of both versions, host-based: the same shell through each.
      const hostedTenant = await hosted.createTenant({ showcase: true });
      const host = `${hostedTenant.name}.tenants.test:${port}`;
      const created = await fetch(`${hosted.url}/tenants/${hostedTenant.name}/api/v3.1/shells`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(sampleShell('urn:hosted:v31')) });
      expect(created.status).toBe(201);
      for (const version of ['v3.0', 'v3.1']) {
        const shell = await hostGet(port, host, `/api/${version}/shells/${Buffer.from('urn:hosted:v31').toString('base64url')}`);
        expect(shell.status, `${version}: ${shell.body.slice(0, 200)}`).toBe(200);
        expect(JSON.parse(shell.body).id).toBe('urn:hosted:v31');
      }
      // Not a tenant host: no tenant.
      expect((await fetch(`${hosted.url}/api/v3.0/openapi.json`)).status).toBe(404);
    } finally {
      await hosted.close();
    }
  });
});

describe('REST API console', () => {
  it('serves Swagger UI from installed packages, with the OAuth client `console` and PKCE', async () => {
    const res = await get('/console');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    expect(res.headers.get('content-security-policy')).toContain("default-src 'self'");
    const html = await res.text();
    expect(html).not.toMatch(/https?:\/\//i);
    const refs = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]);
    expect(refs).toEqual(expect.arrayContaining(['/console/assets/swagger-ui.css', '/console/assets/swagger-ui-bundle.js', '/console/console.js']));
    for (const ref of refs) {
      const asset = await get(ref);
      expect(asset.status, ref).toBe(200);
      expect(asset.headers.get('content-type'), ref).toMatch(/text\/(css|javascript)/);
      expect((await asset.text()).length, ref).toBeGreaterThan(100);
    }
    const boot = await (await get('/console/console.js')).text();
    expect(boot).toContain('"clientId":"console"');
    expect(boot).toContain(`"redirectUri":"${server.url}/console/oauth2-redirect.html"`);
    // The documents come from the page's own origin, whatever host name it was opened at.
    expect(boot).toContain('"managementDocument":"api/v1/openapi.json"');
    expect(boot).toContain('usePkceWithAuthorizationCodeGrant: true');
    expect(boot).toContain('validatorUrl: null');

    const redirect = await get('/console/oauth2-redirect.html');
    expect(redirect.status).toBe(200);
    expect(await redirect.text()).toContain('/console/assets/oauth2-redirect.js');
    expect((await get('/console/assets/oauth2-redirect.js')).status).toBe(200);
    expect((await get('/console/assets/package.json')).status).toBe(404);
  });

  it("lists the documents ?tenant= names: a tenant's AAS API, or with name/instance one of its registry instances", async () => {
    const boot = await (await get('/console/console.js')).text();
    const element = { value: '', textContent: '' };
    let config: Doc;
    const bundle = Object.assign((c: Doc) => ((config = c), { initOAuth: () => undefined }), { presets: { apis: {} }, plugins: { DownloadUrl: {} } });
    vm.runInNewContext(boot, {
      location: { search: '?tenant=acme,acme/reg-a', href: `${server.url}/console?tenant=acme,acme/reg-a` },
      URL,
      URLSearchParams,
      document: { getElementById: () => element },
      window: {},
      SwaggerUIBundle: bundle,
      SwaggerUIStandalonePreset: {},
    });
    expect(config.urls).toEqual([
      { name: 'AAS API of tenant acme', url: 'tenants/acme/api/v3.0/openapi.json' },
      { name: 'Registry instance reg-a of tenant acme', url: 'tenants/acme/reg-a/api/v3.0/openapi.json' },
      { name: 'Management API', url: 'api/v1/openapi.json' },
    ]);
    // Each is served at that URL, relative to the console's.
    for (const { url } of config.urls as { url: string }[]) expect((await get(new URL(url, `${server.url}/console`).pathname)).status, url).toBe(200);
  });

  it('works behind any host name: documents from its own origin, requests to the canonical URLs sent there too', async () => {
    // Opened at a host name PUBLIC_URL does not name (a proxy's, a container's): every URL the page loads is relative.
    const host = 'assets.internal.example:8443';
    const other = `http://${host}`;
    const { port } = new URL(server.url);
    const page = await hostGet(port, host, '/console');
    expect(page.status).toBe(200);
    expect(page.body).not.toContain(server.url);
    const { body: boot } = await hostGet(port, host, '/console/console.js');
    let config!: Doc;
    const bundle = Object.assign((c: Doc) => ((config = c), { initOAuth: () => undefined }), { presets: { apis: {} }, plugins: { DownloadUrl: {} } });
    vm.runInNewContext(boot, {
      location: { search: '?tenant=acme', href: `${other}/console?tenant=acme` },
      URL,
      URLSearchParams,
      document: { getElementById: () => ({ value: '', textContent: '' }) },
      window: {},
      SwaggerUIBundle: bundle,
      SwaggerUIStandalonePreset: {},
    });
    const documents = (config.urls as { url: string }[]).map(({ url }) => new URL(url, `${other}/console`).href);
    expect(documents).toEqual([`${other}/tenants/acme/api/v3.0/openapi.json`, `${other}/api/v1/openapi.json`]);
    // The server answers them under that host name too.
    for (const url of documents) expect((await hostGet(port, host, new URL(url).pathname)).status, url).toBe(200);
    // "Try it out" calls the documents' servers (the canonical URLs): the console sends them to its own origin,
    // but leaves the identity service's endpoints alone.
    const intercept = config.requestInterceptor as (r: { url: string }) => { url: string };
    expect(intercept({ url: `${server.url}/tenants/acme/api/v3.0/shells?limit=1` }).url).toBe(`${other}/tenants/acme/api/v3.0/shells?limit=1`);
    expect(intercept({ url: `${server.url}/api/v1/organizations` }).url).toBe(`${other}/api/v1/organizations`);
    expect(intercept({ url: `${server.url}/oidc/token` }).url).toBe(`${server.url}/oidc/token`);
    expect(intercept({ url: 'https://elsewhere.example/api/v3.0/shells' }).url).toBe('https://elsewhere.example/api/v3.0/shells');
  });
});

describe('CORS', () => {
  const preflight = (base: string, path: string, origin: string) =>
    fetch(base + path, {
      method: 'OPTIONS',
      headers: { origin, 'access-control-request-method': 'PUT', 'access-control-request-headers': 'authorization,content-type,if-match' },
    });

  it('is off by default: no CORS headers at all', async () => {
    const tenant = await server.createTenant();
    const res = await fetch(`${server.api(tenant.name)}/shells`, { headers: { origin: ORIGIN } });
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
    const pre = await preflight(server.api(tenant.name), '/shells', ORIGIN);
    expect(pre.headers.get('access-control-allow-origin')).toBeNull();
    expect(pre.headers.get('access-control-allow-methods')).toBeNull();
  });

  it('echoes an allowed origin, on answers and refusals, and exposes the headers clients read', async () => {
    const tenant = await cors.createTenant();
    const res = await fetch(`${cors.api(tenant.name)}/shells`, { headers: { origin: ORIGIN } });
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBe(ORIGIN);
    expect(res.headers.get('access-control-allow-credentials')).toBeNull();
    const exposed = res.headers.get('access-control-expose-headers')!.split(',');
    expect(exposed).toEqual(expect.arrayContaining(['ETag', 'Location', 'X-Request-Id', 'Retry-After']));
    expect(res.headers.get('vary')).toMatch(/Origin/);

    const refused = await fetch(`${cors.url}/api/v1/organizations`, { headers: { origin: ORIGIN } });
    expect(refused.status).toBe(401);
    expect(refused.headers.get('access-control-allow-origin')).toBe(ORIGIN);
  });

  it('gives a disallowed origin no CORS headers', async () => {
    const tenant = await cors.createTenant();
    const res = await fetch(`${cors.api(tenant.name)}/shells`, { headers: { origin: 'http://evil.example.test' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
    const pre = await preflight(cors.api(tenant.name), '/shells', 'http://evil.example.test');
    expect(pre.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('answers preflights of the tenant and Management APIs', async () => {
    const tenant = await cors.createTenant();
    for (const [base, path] of [
      [cors.api(tenant.name), '/shells/abc'],
      [cors.url, '/api/v1/organizations'],
    ]) {
      const res = await preflight(base, path, ORIGIN);
      expect(res.status, path).toBe(204);
      expect(res.headers.get('access-control-allow-origin')).toBe(ORIGIN);
      expect(res.headers.get('access-control-allow-methods')).toContain('PUT');
      const allowed = res.headers.get('access-control-allow-headers')!.split(',');
      expect(allowed).toEqual(expect.arrayContaining(['Authorization', 'Content-Type', 'If-Match', 'If-None-Match']));
    }
  });
});
