import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { MAX_ELEMENT_DEPTH } from '../../src/common/json-depth';
import { writeXmlEnvironment } from '../../src/aas/xml/writer';
import type { TenantEntity } from '../../src/management/tenants/tenant.entity';
import { minimalPackage, zipOf } from '../support/aasx-package';
import { TestServer, b64, json, startTestServer } from '../support/server';

/**
 * One depth rule for submodel elements, in AAS levels (`MAX_ELEMENT_DEPTH`, 100), the same for every format and
 * route: what the JSON API takes, each export of it is imported again (JSON, XML, AASX with either spec part); one
 * level more is refused with 400 everywhere, and the message names the limit first (the element path is long). A
 * V2.0 document costs three XML elements an AAS level: 70 levels, 216 XML elements deep, are read.
 */

const RULE = `Submodel elements nest at most ${MAX_ELEMENT_DEPTH} levels deep`;

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer(inject('databaseUrl'));
});
afterAll(() => server?.close());

/** A submodel whose elements nest `levels` deep: collections `L1/L2/...`, a Property at the bottom. */
function deepSubmodel(id: string, levels: number): Record<string, unknown> {
  let element: Record<string, unknown> = {
    modelType: 'Property',
    idShort: `L${levels}`,
    valueType: 'xs:string',
    value: 'bottom',
    semanticId: { type: 'ExternalReference', keys: [{ type: 'GlobalReference', value: 'urn:deep:bottom' }] },
  };
  for (let level = levels - 1; level >= 1; level--) element = { modelType: 'SubmodelElementCollection', idShort: `L${level}`, value: [element] };
  return { modelType: 'Submodel', id, idShort: 'Deep', submodelElements: [element] };
}

/** The same as an AAS V2.0 XML environment (three XML elements an AAS level). */
function deepV2(levels: number): string {
  let element = `<aas:submodelElement><aas:property><aas:idShort>L${levels}</aas:idShort><aas:kind>Instance</aas:kind><aas:valueType>string</aas:valueType><aas:value>bottom</aas:value></aas:property></aas:submodelElement>`;
  for (let level = levels - 1; level >= 1; level--) {
    element = `<aas:submodelElement><aas:submodelElementCollection><aas:idShort>L${level}</aas:idShort><aas:kind>Instance</aas:kind><aas:value>${element}</aas:value><aas:ordered>false</aas:ordered><aas:allowDuplicates>false</aas:allowDuplicates></aas:submodelElementCollection></aas:submodelElement>`;
  }
  return `<?xml version="1.0" encoding="UTF-8"?><aas:aasenv xmlns:aas="http://www.admin-shell.io/aas/2/0"><aas:assetAdministrationShells/><aas:assets/><aas:submodels><aas:submodel><aas:idShort>Deep</aas:idShort><aas:identification idType="IRI">urn:deep:v2</aas:identification><aas:kind>Instance</aas:kind><aas:submodelElements>${element}</aas:submodelElements></aas:submodel></aas:submodels><aas:conceptDescriptions/></aas:aasenv>`;
}

/** The depth of a submodel's elements as read back. */
function depthOf(submodel: Record<string, unknown>): number {
  let depth = 0;
  let level = submodel.submodelElements as Record<string, unknown>[] | undefined;
  while (level?.length) {
    depth++;
    level = level[0].value as Record<string, unknown>[] | undefined;
    if (!Array.isArray(level)) break;
  }
  return depth;
}

async function upload(tenant: TenantEntity, bytes: Buffer | string, type: string, name: string): Promise<Response> {
  const form = new FormData();
  form.append('file', new Blob([bytes], { type }), name);
  return fetch(`${server.api(tenant.name)}/upload`, { method: 'POST', body: form });
}

async function refusal(res: Response): Promise<string> {
  const body = await json(res);
  expect(res.status, JSON.stringify(body)).toBe(400);
  return body.messages[0].text as string;
}

const FORMATS = [
  { accept: 'application/json', type: 'application/json', name: 'env.json' },
  { accept: 'application/xml', type: 'application/xml', name: 'env.xml' },
  { accept: 'application/asset-administration-shell-package+xml', type: 'application/asset-administration-shell-package', name: 'env.aasx' },
  { accept: 'application/asset-administration-shell-package+json', type: 'application/asset-administration-shell-package', name: 'env.aasx' },
];

describe('submodel elements nest at most MAX_ELEMENT_DEPTH levels, in every format', () => {
  it(`a submodel ${MAX_ELEMENT_DEPTH} levels deep: taken by the JSON API, and each of its four exports imports again whole`, async () => {
    const tenant = await server.createTenant();
    const post = await fetch(`${server.api(tenant.name)}/submodels`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(deepSubmodel('urn:deep:sm', MAX_ELEMENT_DEPTH)),
    });
    expect(post.status, await post.clone().text()).toBe(201);
    for (const format of FORMATS) {
      const res = await fetch(`${server.api(tenant.name)}/serialization`, { headers: { accept: format.accept } });
      expect(res.status, format.accept).toBe(200);
      const again = await server.createTenant();
      const imported = await upload(again, Buffer.from(await res.arrayBuffer()), format.type, format.name);
      expect(imported.status, `${format.accept}: ${await imported.clone().text()}`).toBe(200);
      const submodel = await json(fetch(`${server.api(again.name)}/submodels/${b64('urn:deep:sm')}`));
      expect(depthOf(submodel), format.accept).toBe(MAX_ELEMENT_DEPTH);
    }
  });

  it('one level more is refused with 400 naming the limit: the JSON API, a JSON, XML and AASX upload', async () => {
    const tenant = await server.createTenant();
    const deeper = deepSubmodel('urn:deep:too', MAX_ELEMENT_DEPTH + 1);
    const post = await fetch(`${server.api(tenant.name)}/submodels`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(deeper) });
    const text = await refusal(post);
    expect(text.startsWith(RULE), text).toBe(true);
    expect(text).toContain(`L${MAX_ELEMENT_DEPTH + 1}`);
    expect(text).not.toMatch(/more characters/);

    const environment = JSON.stringify({ submodels: [deeper] });
    const uploaded = await refusal(await upload(tenant, environment, 'application/json', 'deep.json'));
    expect(uploaded).toContain(RULE);
    // Nothing was stored.
    expect((await json(fetch(`${server.api(tenant.name)}/submodels`))).result).toEqual([]);

    // The same environment as XML (our writer writes any depth): the XML reader's refusal names the same rule.
    const tooDeepXml = writeXmlEnvironment({ submodels: [deeper] });
    const xmlText = await refusal(await upload(tenant, tooDeepXml, 'application/xml', 'deep.xml'));
    expect(xmlText).toContain(RULE);
    expect(xmlText).not.toMatch(/more characters/);
    const aasxText = await refusal(await upload(tenant, zipOf(minimalPackage(environment)), 'application/asset-administration-shell-package', 'deep.aasx'));
    expect(aasxText).toContain(RULE);
  });

  it('an element posted into a collection counts from the submodel: at level 100 it may be a Property, not a collection', async () => {
    const tenant = await server.createTenant();
    const sm = deepSubmodel('urn:deep:post', MAX_ELEMENT_DEPTH);
    await fetch(`${server.api(tenant.name)}/submodels`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(sm) });
    const path = Array.from({ length: MAX_ELEMENT_DEPTH - 1 }, (_, i) => `L${i + 1}`).join('.');
    const at = `${server.api(tenant.name)}/submodels/${b64('urn:deep:post')}/submodel-elements/${path}`;
    const headers = { 'content-type': 'application/json' };
    const ok = await fetch(at, { method: 'POST', headers, body: JSON.stringify({ modelType: 'Property', idShort: 'Last', valueType: 'xs:string' }) });
    expect(ok.status, await ok.clone().text()).toBe(201);
    const nested = { modelType: 'SubmodelElementCollection', idShort: 'TooDeep', value: [{ modelType: 'Property', idShort: 'Beyond', valueType: 'xs:string' }] };
    const text = await refusal(await fetch(at, { method: 'POST', headers, body: JSON.stringify(nested) }));
    expect(text.startsWith(RULE), text).toBe(true);
  });

  it('an AAS V2.0 document 70 levels (216 XML elements) deep is read; one beyond the rule is refused naming it', async () => {
    const tenant = await server.createTenant();
    const res = await upload(tenant, deepV2(70), 'application/xml', 'deep-v2.xml');
    expect(res.status, await res.clone().text()).toBe(200);
    expect(depthOf(await json(fetch(`${server.api(tenant.name)}/submodels/${b64('urn:deep:v2')}`)))).toBe(70);
    const text = await refusal(await upload(await server.createTenant(), deepV2(MAX_ELEMENT_DEPTH + 1), 'application/xml', 'deeper-v2.xml'));
    expect(text).toContain(RULE);
  });
});
