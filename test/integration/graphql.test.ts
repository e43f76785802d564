import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { TestServer, json, sampleShell, startTestServer } from '../support/server';
import { compilePending, preparedOperations } from '../../rest-facade/executor';
import { buildAppSchema } from '../../src/graphql/schema';

let server: TestServer;
let tenant: string;

const gql = (query: string, variables: Record<string, unknown> = {}) =>
  json(fetch(`${server.url}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query, variables }) }));

beforeAll(async () => {
  server = await startTestServer(inject('databaseUrl'));
  tenant = (await server.createTenant()).name;
});
afterAll(() => server?.close());

const richShell = sampleShell('urn:gql:1', {
  idShort: 'Pump',
  description: [{ language: 'en', text: 'A pump' }],
  displayName: [{ language: 'de', text: 'Pumpe' }],
  administration: { version: '1', revision: '2' },
  derivedFrom: { type: 'ModelReference', keys: [{ type: 'AssetAdministrationShell', value: 'urn:gql:type' }] },
  assetInformation: {
    assetKind: 'Instance',
    globalAssetId: 'urn:asset:gql',
    specificAssetIds: [{ name: 'serial', value: 'S-1', externalSubjectId: { type: 'ExternalReference', keys: [{ type: 'GlobalReference', value: 'urn:maker' }] } }],
    defaultThumbnail: { path: 'thumb.png', contentType: 'image/png' },
  },
  submodels: [{ type: 'ModelReference', keys: [{ type: 'Submodel', value: 'urn:sm:gql' }] }],
});

describe('GraphQL', () => {
  it('every operation of the REST facade fits the schema and compiles (a started server compiles them in the background)', async () => {
    const schema = await buildAppSchema();
    // Throws, naming the operation, for one that does not fit the schema; compiles what the background has not yet.
    await compilePending(schema);
    const { prepared, compiled } = preparedOperations(schema);
    // Every route of the Management and AAS APIs runs one of them: far more than a hundred.
    expect(prepared).toBeGreaterThan(100);
    expect(compiled).toBe(prepared);
  });

  it('creates a shell and reads it through typed fields', async () => {
    const created = await gql('mutation($t: String!, $s: JSONObject!) { createShell(tenant: $t, shell: $s) { id } }', { t: tenant, s: richShell });
    expect(created).toEqual({ data: { createShell: { id: 'urn:gql:1' } } });
    const res = await gql(
      `query($t: String!) { shell(tenant: $t, id: "urn:gql:1") {
        id idShort description { language text } displayName { language text }
        administration { version revision }
        derivedFrom { type keys { type value } }
        assetInformation { assetKind globalAssetId defaultThumbnail { path contentType }
          specificAssetIds { name value externalSubjectId { type keys { type value } } } }
        submodelRefs { type keys { type value } }
        reference { type keys { type value } }
        json
      } }`,
      { t: tenant },
    );
    expect(res.errors).toBeUndefined();
    const shell = res.data.shell;
    // Every typed field carries what was sent (`modelType` is implied by the type).
    const { modelType: _implied, submodels, ...typed } = richShell;
    expect(shell).toMatchObject({
      ...typed,
      submodelRefs: submodels,
      reference: { type: 'ModelReference', keys: [{ type: 'AssetAdministrationShell', value: 'urn:gql:1' }] },
    });
    expect(shell.json).toEqual(richShell);
  });

  it('pages with the same cursors and filters as REST', async () => {
    for (let n = 0; n < 5; n++) {
      await gql('mutation($t: String!, $s: JSONObject!) { createShell(tenant: $t, shell: $s) { id } }', {
        t: tenant,
        s: sampleShell(`urn:gql:page:${n}`, { idShort: 'Paged', assetInformation: { assetKind: n < 2 ? 'Type' : 'Instance', globalAssetId: `a${n}` } }),
      });
    }
    const page = (cursor: string | null) =>
      gql('query($t: String!, $c: String) { shells(tenant: $t, filter: { idShort: "Paged" }, limit: 2, cursor: $c) { result { id } pagingMetadata { cursor } } }', { t: tenant, c: cursor });
    const ids: string[] = [];
    let cursor: string | null = null;
    do {
      const res = await page(cursor);
      ids.push(...res.data.shells.result.map((s: { id: string }) => s.id));
      cursor = res.data.shells.pagingMetadata.cursor;
    } while (cursor);
    expect(ids).toEqual([0, 1, 2, 3, 4].map((n) => `urn:gql:page:${n}`));
    // A GraphQL cursor continues a REST listing: one paging mechanism.
    const first = await page(null);
    const rest = await json(fetch(`${server.api(tenant)}/shells?idShort=Paged&limit=2&cursor=${first.data.shells.pagingMetadata.cursor}`));
    expect(rest.result.map((s: { id: string }) => s.id)).toEqual(['urn:gql:page:2', 'urn:gql:page:3']);

    const types = await gql('query($t: String!) { shells(tenant: $t, filter: { assetKind: Type }) { result { id } } }', { t: tenant });
    expect(types.data.shells.result.map((s: { id: string }) => s.id)).toEqual(['urn:gql:page:0', 'urn:gql:page:1']);
    // An explicit null in a filter means no condition, as an absent field does.
    const nulls = await gql('query($t: String!) { shells(tenant: $t, filter: { idShort: null, assetKind: null, assetIds: null }, limit: 250) { result { id } } }', { t: tenant });
    expect(nulls.data.shells.result.map((s: { id: string }) => s.id)).toEqual(expect.arrayContaining(['urn:gql:page:0', 'urn:gql:page:4']));
    const byAsset = await gql('query($t: String!) { shells(tenant: $t, filter: { assetIds: [{ name: "globalAssetId", value: "a3" }] }) { result { id } } }', { t: tenant });
    expect(byAsset.data.shells.result).toEqual([{ id: 'urn:gql:page:3' }]);
  });

  it('answers shellsJson as the JSON texts of the page `shells` gives, with its cursors and filters (what GET /shells joins)', async () => {
    for (let n = 0; n < 3; n++) {
      await gql('mutation($t: String!, $s: JSONObject!) { createShell(tenant: $t, shell: $s) { id } }', {
        t: tenant,
        s: sampleShell(`urn:gql:text:${n}`, { idShort: 'AsText', displayName: [{ language: 'en', text: `Shell ${n} "quoted" ü` }] }),
      });
    }
    const texts = (cursor: string | null) =>
      gql('query($t: String!, $c: String) { shellsJson(tenant: $t, filter: { idShort: "AsText" }, limit: 2, cursor: $c) { result pagingMetadata { cursor } } }', { t: tenant, c: cursor });
    const objects = (cursor: string | null) =>
      gql('query($t: String!, $c: String) { shells(tenant: $t, filter: { idShort: "AsText" }, limit: 2, cursor: $c) { result { json } pagingMetadata { cursor } } }', { t: tenant, c: cursor });
    const first = await texts(null);
    expect(first.errors).toBeUndefined();
    expect(first.data.shellsJson.result.map((text: string) => JSON.parse(text))).toEqual((await objects(null)).data.shells.result.map((s: { json: unknown }) => s.json));
    const cursor = first.data.shellsJson.pagingMetadata.cursor;
    expect(cursor).toBe((await objects(null)).data.shells.pagingMetadata.cursor);
    const second = await texts(cursor);
    expect(second.data.shellsJson.result.map((text: string) => JSON.parse(text).id)).toEqual(['urn:gql:text:2']);
    expect(second.data.shellsJson.pagingMetadata.cursor).toBeNull();
    // The REST list is these texts joined: the same documents as before, escapes and all.
    const rest = await json(fetch(`${server.api(tenant)}/shells?idShort=AsText&limit=2`));
    expect(rest).toEqual({ paging_metadata: { cursor }, result: first.data.shellsJson.result.map((text: string) => JSON.parse(text)) });
    expect(rest.result[1].displayName).toEqual([{ language: 'en', text: 'Shell 1 "quoted" ü' }]);
    const last = await json(fetch(`${server.api(tenant)}/shells?idShort=AsText&limit=2&cursor=${cursor}`));
    expect(last.paging_metadata).toEqual({});
    const none = await json(fetch(`${server.api(tenant)}/shells?idShort=Nothing`));
    expect(none).toEqual({ paging_metadata: {}, result: [] });
    // The tenant rule holds as for every tenant field.
    const stranger = await gql('{ shellsJson(tenant: "no-such-tenant") { result } }');
    expect(stranger.errors?.[0]?.extensions?.code).toMatch(/UNAUTHENTICATED|NOT_FOUND/);
  });

  it('has a mutation for every write', async () => {
    const t = tenant;
    const run = (q: string, v: Record<string, unknown> = {}) => gql(q, { t, ...v });
    expect((await run('mutation($t: String!) { addSubmodelRef(tenant: $t, id: "urn:gql:1", reference: { type: "ModelReference", keys: [{ type: "Submodel", value: "urn:sm:two" }] }) { keys { value } } }')).data.addSubmodelRef).toEqual({ keys: [{ value: 'urn:sm:two' }] });
    const refs = await run('query($t: String!) { shellSubmodelRefs(tenant: $t, id: "urn:gql:1", limit: 1) { result { keys { value } } pagingMetadata { cursor } } }');
    expect(refs.data.shellSubmodelRefs.result).toEqual([{ keys: [{ value: 'urn:sm:gql' }] }]);
    expect(refs.data.shellSubmodelRefs.pagingMetadata.cursor).toEqual(expect.any(String));
    expect((await run('mutation($t: String!) { removeSubmodelRef(tenant: $t, id: "urn:gql:1", submodelId: "urn:sm:gql") }')).data.removeSubmodelRef).toBe(true);
    const info = await run('mutation($t: String!) { replaceAssetInformation(tenant: $t, id: "urn:gql:1", assetInformation: { assetKind: "Type", globalAssetId: "urn:new" }) { assetInformation { assetKind globalAssetId } } }');
    expect(info.data.replaceAssetInformation.assetInformation).toEqual({ assetKind: 'Type', globalAssetId: 'urn:new' });
    const replaced = await run('mutation($t: String!, $s: JSONObject!) { replaceShell(tenant: $t, id: "urn:gql:1", shell: $s) { idShort submodelRefs { keys { value } } } }', { s: sampleShell('urn:gql:1', { idShort: 'Replaced' }) });
    expect(replaced.data.replaceShell).toEqual({ idShort: 'Replaced', submodelRefs: null });
    expect((await run('mutation($t: String!) { deleteShell(tenant: $t, id: "urn:gql:1") }')).data.deleteShell).toBe(true);
    expect((await run('query($t: String!) { shell(tenant: $t, id: "urn:gql:1") { id } }')).errors[0].extensions.code).toBe('NOT_FOUND');
  });

  it('reports bad input with codes and the model paths', async () => {
    const bad = await gql('mutation($t: String!, $s: JSONObject!) { createShell(tenant: $t, shell: $s) { id } }', { t: tenant, s: { modelType: 'AssetAdministrationShell' } });
    expect(bad.errors[0].extensions.code).toBe('BAD_REQUEST');
    expect(bad.errors[0].extensions.messages[0]).toMatch(/^\$/);
    const limit = await gql('query($t: String!) { shells(tenant: $t, limit: 251) { result { id } } }', { t: tenant });
    expect(limit.errors[0].extensions.code).toBe('BAD_REQUEST');
    const cursor = await gql('query($t: String!) { shells(tenant: $t, cursor: "forged") { result { id } } }', { t: tenant });
    expect(cursor.errors[0].extensions.code).toBe('BAD_REQUEST');
    // Anonymous callers learn nothing about tenants that are not in showcase mode, not even whether they exist.
    const tenantMissing = await gql('{ shells(tenant: "no-such-tenant") { result { id } } }');
    expect(tenantMissing.errors[0].extensions.code).toBe('UNAUTHENTICATED');
    const nul = await gql('query($t: String!) { shell(tenant: $t, id: "a\\u0000b") { id } }', { t: tenant });
    expect(nul.errors[0].extensions.code).toBe('BAD_REQUEST');
  });
});

describe('GraphQL limits', () => {
  it('answers the introspection query the playground sends', async () => {
    const { getIntrospectionQuery } = await import('graphql');
    const res = await gql(getIntrospectionQuery());
    expect(res.errors).toBeUndefined();
    expect(res.data.__schema.queryType.name).toBe('Query');
  });

  it('refuses documents with too many root fields or selections before running them', async () => {
    const roots = Array.from({ length: 21 }, (_, i) => `a${i}: shells(tenant: "${tenant}") { result { id } }`).join(' ');
    const tooManyRoots = await gql(`{ ${roots} }`);
    expect(tooManyRoots.data).toBeUndefined();
    expect(tooManyRoots.errors[0].message).toMatch(/more than 20 root fields/);
    const aliases = Array.from({ length: 2500 }, (_, i) => `a${i}: id`).join(' ');
    const tooBig = await gql(`{ shells(tenant: "${tenant}") { result { ${aliases} } } }`);
    expect(tooBig.data).toBeUndefined();
    expect(tooBig.errors[0].message).toMatch(/more than 2000 fields/);
    // Fragments spread into each other multiply (here 30 x 30 x 4 selections); they are counted expanded.
    const spreads = (name: string, times: number) => Array.from({ length: times }, () => `...${name}`).join(' ');
    const fragments = `fragment A on Shell { id idShort category } fragment B on Shell { id ${spreads('A', 30)} } fragment C on Shell { ${spreads('B', 30)} }`;
    const multiplied = await gql(`{ shells(tenant: "${tenant}") { result { ...C } } } ${fragments}`);
    expect(multiplied.errors[0].message).toMatch(/more than 2000 fields/);
    const rootsInFragment = await gql(`{ ...R } fragment R on Query { ${roots} }`);
    expect(rootsInFragment.errors[0].message).toMatch(/more than 20 root fields/);
  });
});

describe('GraphQL failures', () => {
  it('does not leak internal error texts to clients', async () => {
    const other = await startTestServer(inject('databaseUrl'));
    const name = (await other.createTenant()).name;
    await other.dataSource.destroy(); // every query now fails inside the server
    try {
      const res = await json(
        fetch(`${other.url}/graphql`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ query: `{ shells(tenant: "${name}") { result { id } } }` }),
        }),
      );
      expect(res.errors[0]).toMatchObject({ message: 'Internal server error.', extensions: { code: 'INTERNAL_SERVER_ERROR' } });
      expect(JSON.stringify(res)).not.toMatch(/stack|DataSource|Connection|pool/i);
      const rest = await fetch(`${other.api(name)}/shells`);
      expect(rest.status).toBe(500);
      expect((await json(rest)).messages[0]).toMatchObject({ code: '500', messageType: 'Exception', text: 'Internal server error.' });
    } finally {
      await other.dataSource.initialize();
      await other.close();
    }
  });
});
