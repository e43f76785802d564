import { jsonization, verification } from '@aas-core-works/aas-core3.0-typescript';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { readAasxPackage } from '../../src/aas/aasx';
import { readXmlEnvironment } from '../../src/aas/xml/reader';
import type { TenantEntity } from '../../src/management/tenants/tenant.entity';
import { TestServer, b64, json, sampleShell, startTestServer } from '../support/server';

let server: TestServer;
let tenant: TenantEntity;

const ref = (type: string, value: string) => ({ type: 'ExternalReference', keys: [{ type, value }] });
const cd = (id: string, valueIds: string[] = []) => ({
  modelType: 'ConceptDescription',
  id,
  ...(valueIds.length
    ? {
        embeddedDataSpecifications: [
          {
            dataSpecification: ref('GlobalReference', 'https://admin-shell.io/DataSpecificationTemplates/DataSpecificationIec61360/3/0'),
            dataSpecificationContent: {
              modelType: 'DataSpecificationIec61360',
              preferredName: [{ language: 'en', text: id }],
              definition: [{ language: 'en', text: `definition of ${id}` }],
              valueList: { valueReferencePairs: valueIds.map((v, i) => ({ value: `v${i}`, valueId: ref('GlobalReference', v) })) },
            },
          },
        ],
      }
    : {}),
});
const submodel = (id: string, semanticIds: string[]) => ({
  modelType: 'Submodel',
  id,
  semanticId: ref('GlobalReference', semanticIds[0]),
  ...(semanticIds.length > 1 ? { submodelElements: semanticIds.slice(1).map((s, i) => ({ modelType: 'Property', idShort: `p${i}`, valueType: 'xs:string', value: 'x', semanticId: ref('GlobalReference', s) })) } : {}),
});

async function post(path: string, body: unknown): Promise<void> {
  const res = await fetch(`${server.api(tenant.name)}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  expect(res.status, await res.clone().text()).toBe(201);
}

const serialize = (query: string, accept: string = 'application/json') =>
  fetch(`${server.api(tenant.name)}/serialization${query}`, { headers: accept ? { accept } : {} });

beforeAll(async () => {
  server = await startTestServer(inject('databaseUrl'));
  tenant = await server.createTenant({ showcase: true });
  await post('/shells', sampleShell('urn:s:shell:1'));
  await post('/shells', sampleShell('urn:s:shell:2'));
  await post('/submodels', submodel('urn:s:sm:1', ['urn:s:cd:a', 'urn:s:cd:b']));
  await post('/submodels', submodel('urn:s:sm:2', ['urn:s:cd:c']));
  await post('/concept-descriptions', cd('urn:s:cd:a', ['urn:s:cd:value']));
  await post('/concept-descriptions', cd('urn:s:cd:b'));
  await post('/concept-descriptions', cd('urn:s:cd:c'));
  await post('/concept-descriptions', cd('urn:s:cd:value'));
  await post('/concept-descriptions', cd('urn:s:cd:unused'));
});
afterAll(() => server?.close());

/** The environment is a valid one: the official library reads it and finds no constraint broken. */
function expectValid(env: unknown): void {
  const parsed = jsonization.environmentFromJsonable(env as jsonization.JsonValue);
  expect(parsed.error).toBeNull();
  expect([...verification.verify(parsed.mustValue(), true)]).toEqual([]);
}

describe('GET /serialization: XML (the default) and AASX packages', () => {
  const query = `?aasIds=${b64('urn:s:shell:1')}&submodelIds=${b64('urn:s:sm:1')}`;
  it('XML without an Accept header, the same environment as the JSON', async () => {
    const res = await serialize(query, '');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/xml/);
    const xml = await res.text();
    expect(xml).toMatch(/^<\?xml/);
    expect(readXmlEnvironment(xml)).toEqual(await json(serialize(query)));
    expect(readXmlEnvironment(await (await serialize('', 'application/xml')).text())).toEqual(await json(serialize('')));
  });

  for (const [type, spec] of [
    ['application/asset-administration-shell-package+json', '/aasx/data.json'],
    ['application/asset-administration-shell-package+xml', '/aasx/data.xml'],
  ] as const) {
    it(`${type}: a package with the environment at ${spec}, as an attachment`, async () => {
      const res = await serialize(query, type);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe(type);
      expect(res.headers.get('content-disposition')).toBe("attachment; filename=\"urn_s_shell_1.aasx\"; filename*=UTF-8''urn_s_shell_1.aasx");
      const pkg = await readAasxPackage(Buffer.from(await res.arrayBuffer()));
      expect(pkg.specs.map((s) => s.path)).toEqual([spec]);
      const text = await pkg.specs[0].text();
      const env = spec.endsWith('json') ? JSON.parse(text) : readXmlEnvironment(text);
      expect(env).toEqual(await json(serialize(query)));
    });
  }
});

describe('GET /serialization (JSON)', () => {
  it('the shells and submodels asked for, with the concept descriptions the submodels reference (through value lists too)', async () => {
    const res = await serialize(`?aasIds=${b64('urn:s:shell:1')}&submodelIds=${b64('urn:s:sm:1')}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    const env = await json(res);
    expectValid(env);
    expect(env.assetAdministrationShells.map((s: { id: string }) => s.id)).toEqual(['urn:s:shell:1']);
    expect(env.submodels.map((s: { id: string }) => s.id)).toEqual(['urn:s:sm:1']);
    expect(env.conceptDescriptions.map((c: { id: string }) => c.id).sort()).toEqual(['urn:s:cd:a', 'urn:s:cd:b', 'urn:s:cd:value']);
  });

  it('includeConceptDescriptions=false leaves them out; a list with nothing in it is left out', async () => {
    const env = await json(serialize(`?submodelIds=${b64('urn:s:sm:2')}&includeConceptDescriptions=false`));
    expect(env).toEqual({ submodels: [expect.objectContaining({ id: 'urn:s:sm:2' })] });
    expectValid(env);
  });

  it('no ids: the whole tenant, every concept description', async () => {
    const env = await json(serialize(''));
    expectValid(env);
    expect(env.assetAdministrationShells).toHaveLength(2);
    expect(env.submodels).toHaveLength(2);
    expect(env.conceptDescriptions).toHaveLength(5);
    const empty = await server.createTenant({ showcase: true });
    expect(await json(fetch(`${server.api(empty.name)}/serialization`, { headers: { accept: 'application/json' } }))).toEqual({});
  });

  it('bad input: unknown ids 404, bad base64 and bad booleans 400, unknown parameters 400, unacceptable Accept 406', async () => {
    const missing = await serialize(`?aasIds=${b64('urn:s:shell:1')},${b64('urn:nope')}`);
    expect(missing.status).toBe(404);
    expect((await json(missing)).messages[0].text).toContain("'urn:nope'");
    expect((await serialize('?aasIds=%%%')).status).toBe(400);
    expect((await serialize('?aasIds=!!')).status).toBe(400);
    expect((await serialize('?includeConceptDescriptions=yes')).status).toBe(400);
    expect((await serialize('?includeConceptDescriptions=true&includeConceptDescriptions=false')).status).toBe(400);
    expect((await serialize('?level=deep')).status).toBe(400);
    const refused = await serialize('', 'text/plain');
    expect(refused.status).toBe(406);
    expect((await json(refused)).messages[0].text).toContain('application/json');
  });

  it('obeys access: no token on a non-showcase tenant is 401, an unknown tenant too', async () => {
    const closed = await server.createTenant({ showcase: false });
    expect((await fetch(`${server.api(closed.name)}/serialization`, { headers: { accept: 'application/json' } })).status).toBe(401);
  });
});
