import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { TestServer, json, startTestServer } from '../support/server';

/**
 * GraphQL reads and writes V3.1 content (`aasVersion: V3_1`) over the same stored documents V3.0 reads mapped
 * (the default), with what was mapped in `mappedForV30`; each version's writes are verified with its constraints,
 * and bad input is a 400-coded error through both.
 */

let server: TestServer;
let tenant: string;

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Gql = { data?: any; errors?: { message: string; extensions: { code: string; messages?: string[] } }[] };

const gql = (query: string, variables: Record<string, unknown> = {}): Promise<Gql> =>
  json(fetch(`${server.url}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query, variables: { t: tenant, ...variables } }) }));

async function data(query: string, variables: Record<string, unknown> = {}) {
  const res = await gql(query, variables);
  expect(res.errors, JSON.stringify(res.errors)).toBeUndefined();
  return res.data;
}

beforeAll(async () => {
  server = await startTestServer(inject('databaseUrl'));
  tenant = (await server.createTenant()).name;
});
afterAll(async () => {
  await server?.close();
});

const ref = (value: string) => ({ type: 'ExternalReference', keys: [{ type: 'GlobalReference', value }] });
const SM = {
  modelType: 'Submodel',
  id: 'urn:gql:v31:sm',
  idShort: 'Plant',
  submodelElements: [
    { modelType: 'Property', idShort: 'Max-Temperature', valueType: 'xs:double', value: '80' },
    { modelType: 'Entity', idShort: 'Station' },
    { modelType: 'File', idShort: 'Manual', value: 'https://example.invalid/manual.pdf' },
    { modelType: 'RelationshipElement', idShort: 'Open', first: ref('urn:a') },
  ],
};
const SHELL = { modelType: 'AssetAdministrationShell', id: 'urn:gql:v31:aas', assetInformation: { assetKind: 'Role', globalAssetId: 'urn:gql:asset' } };

const CREATE_SM = 'mutation($t: String!, $sm: JSONObject!, $v: AasVersion) { createSubmodel(tenant: $t, submodel: $sm, aasVersion: $v) { id } }';
const READ_SM = 'query($t: String!, $id: String!, $v: AasVersion) { submodel(tenant: $t, id: $id, aasVersion: $v) { json mappedForV30 } submodelJson(tenant: $t, id: $id, aasVersion: $v) { text mappedForV30 } }';

describe('aasVersion in GraphQL', () => {
  it('a V3.1 submodel and shell are created through V3_1, read back as written through V3_1, mapped through V3_0', async () => {
    await data(CREATE_SM, { sm: SM, v: 'V3_1' });
    await data('mutation($t: String!, $s: JSONObject!) { createShell(tenant: $t, shell: $s, aasVersion: V3_1) { id } }', { s: SHELL });
    const v31 = await data(READ_SM, { id: SM.id, v: 'V3_1' });
    expect(v31.submodel.json).toEqual(SM);
    expect(JSON.parse(v31.submodelJson.text)).toEqual(SM);
    expect(v31.submodel.mappedForV30).toEqual([]);
    const v30 = await data(READ_SM, { id: SM.id });
    expect(v30.submodel.json.submodelElements).toEqual([
      SM.submodelElements[0],
      { modelType: 'Entity', idShort: 'Station', entityType: 'CoManagedEntity' },
      { ...SM.submodelElements[2], contentType: 'application/octet-stream' },
    ]);
    expect(JSON.parse(v30.submodelJson.text)).toEqual(v30.submodel.json);
    expect(v30.submodel.mappedForV30).toHaveLength(3);
    expect(v30.submodelJson.mappedForV30).toEqual(v30.submodel.mappedForV30);
    const shells = await data('query($t: String!, $id: String!) { a: shell(tenant: $t, id: $id) { json mappedForV30 } b: shell(tenant: $t, id: $id, aasVersion: V3_1) { json } }', { id: SHELL.id });
    expect(shells.a.json.assetInformation.assetKind).toBe('NotApplicable');
    expect(shells.a.mappedForV30).toEqual(['$.assetInformation.assetKind: AssetKind Role (new in V3.1): read as NotApplicable']);
    expect(shells.b.json).toEqual(SHELL);
  });

  it('a V3.0 replacement keeps the V3.1 parts it did not touch; a V3.1 replacement writes what it says', async () => {
    const v30 = (await data(READ_SM, { id: SM.id })).submodel.json;
    v30.submodelElements[0].value = '90';
    await data('mutation($t: String!, $id: String!, $sm: JSONObject!) { replaceSubmodel(tenant: $t, id: $id, submodel: $sm) { id } }', { id: SM.id, sm: v30 });
    const kept = structuredClone(SM);
    kept.submodelElements[0].value = '90';
    expect((await data(READ_SM, { id: SM.id, v: 'V3_1' })).submodel.json).toEqual(kept);
    const rewritten = { ...SM, submodelElements: [SM.submodelElements[0]] };
    await data('mutation($t: String!, $id: String!, $sm: JSONObject!) { replaceSubmodel(tenant: $t, id: $id, submodel: $sm, aasVersion: V3_1) { id } }', { id: SM.id, sm: rewritten });
    expect((await data(READ_SM, { id: SM.id, v: 'V3_1' })).submodel.json).toEqual(rewritten);
  });

  it('each version verifies with its constraints: what only V3.1 allows is refused through V3_0; what neither allows through both', async () => {
    const only31 = { modelType: 'Submodel', id: 'urn:gql:v31:only', submodelElements: [{ modelType: 'Entity', idShort: 'E' }] };
    const refused = await gql(CREATE_SM, { sm: only31 });
    expect(refused.errors?.[0].extensions.code).toBe('BAD_REQUEST');
    const hyphen = { modelType: 'Submodel', id: 'urn:gql:v31:hyphen', submodelElements: [{ modelType: 'Property', idShort: 'A-B', valueType: 'xs:string' }] };
    expect((await gql(CREATE_SM, { sm: hyphen })).errors?.[0].message).toMatch(/ID-short of Referables/);
    await data(CREATE_SM, { sm: hyphen, v: 'V3_1' });
    const neither = { modelType: 'Submodel', id: 'urn:gql:v31:neither', submodelElements: [{ modelType: 'Property', idShort: 'Ends-', valueType: 'xs:string' }] };
    for (const v of ['V3_0', 'V3_1']) {
      const res = await gql(CREATE_SM, { sm: neither, v });
      expect(res.errors?.[0].extensions.code, v).toBe('BAD_REQUEST');
    }
    expect((await gql(CREATE_SM, { sm: { ...only31, id: 'urn:gql:v31:stray', extra: 1 }, v: 'V3_1' })).errors?.[0].message).toMatch(/unexpected property/);
    expect((await gql(CREATE_SM, { sm: only31, v: 'V3_2' })).errors?.[0].extensions.code).toBe('BAD_USER_INPUT');
  });
});
