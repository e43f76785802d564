import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { TenantEntity } from '../../src/management/tenants/tenant.entity';
import { TestServer, b64, json, startTestServer } from '../support/server';
import { jsonSchemaProblems, packageProblems, xmlSchemaProblems } from '../support/strict-readers';
import { AASX_DIR } from '../support/testdata';

/**
 * What we write, strict readers read: exports of real inputs checked against the official AAS V3.0 JSON schema
 * and AAS.xsd (what the BaSyx Python SDK's strict readers enforce), and packages checked for File values without
 * their parts (which the SDK's AASX reader refuses).
 */

const FIXTURES = path.resolve(__dirname, '../fixtures');
/** IDTA Digital Nameplate 3.0 as published: two SubmodelElementList items carry `<idShort></idShort>`. */
const NAMEPLATE_3_0 = path.join(AASX_DIR, 'interop/IDTA_02006-3-0_Template_Digital_Nameplate.aasx');
/** The BaSyx Python SDK's full example: File values `/TestFile.pdf`, a file no JSON environment carries. */
const BASYX_FULL_EXAMPLE = path.join(FIXTURES, 'basyx-python/test_demo_full_example.json');

const FORMATS = {
  json: 'application/json',
  xml: 'application/xml',
  aasxJson: 'application/asset-administration-shell-package+json',
  aasxXml: 'application/asset-administration-shell-package+xml',
} as const;

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer(inject('databaseUrl'));
});
afterAll(() => server?.close());

async function upload(tenant: TenantEntity, bytes: Buffer, type: string, name: string): Promise<{ warnings?: string[] }> {
  const form = new FormData();
  form.append('file', new Blob([bytes], { type }), name);
  const res = await fetch(`${server.api(tenant.name)}/upload`, { method: 'POST', body: form });
  const body = await json(res);
  expect(res.status, JSON.stringify(body).slice(0, 600)).toBe(200);
  return body;
}

async function exported(tenant: TenantEntity, accept: string, query = ''): Promise<Buffer> {
  const res = await fetch(`${server.api(tenant.name)}/serialization${query}`, { headers: { accept } });
  const bytes = Buffer.from(await res.arrayBuffer());
  expect(res.status, bytes.toString('utf8', 0, 600)).toBe(200);
  return bytes;
}

describe('exports hold no empty values the schemas forbid', () => {
  it('IDTA Digital Nameplate 3.0 (empty idShorts stored as read): the JSON, XML and both AASX exports validate against the official schemas', async () => {
    const tenant = await server.createTenant();
    await upload(tenant, fs.readFileSync(NAMEPLATE_3_0), 'application/asset-administration-shell-package', 'nameplate.aasx');
    // The import keeps what the source holds: the empty idShort is stored.
    const stored = JSON.stringify(await json(fetch(`${server.api(tenant.name)}/submodels`)));
    expect(stored).toContain('"idShort":""');

    const plain = await exported(tenant, FORMATS.json);
    expect(plain.toString()).not.toContain('"idShort":""');
    expect(jsonSchemaProblems(JSON.parse(plain.toString()))).toEqual([]);
    expect(await xmlSchemaProblems((await exported(tenant, FORMATS.xml)).toString())).toEqual([]);
    const packagedJson = await packageProblems(await exported(tenant, FORMATS.aasxJson));
    expect(jsonSchemaProblems(JSON.parse(packagedJson.spec))).toEqual([]);
    expect(packagedJson.dangling).toEqual([]);
    const packagedXml = await packageProblems(await exported(tenant, FORMATS.aasxXml));
    expect(await xmlSchemaProblems(packagedXml.spec)).toEqual([]);
    expect(packagedXml.dangling).toEqual([]);
  });

  it('empty strings, language strings without text and empty optional lists are left out; required lists and empty values stay', async () => {
    const tenant = await server.createTenant();
    const environment = {
      assetAdministrationShells: [
        {
          modelType: 'AssetAdministrationShell',
          id: 'urn:interop:shell',
          idShort: '',
          description: [{ language: 'en', text: '' }],
          displayName: [],
          extensions: [],
          assetInformation: { assetKind: 'Instance', globalAssetId: 'urn:interop:asset', assetType: '' },
          submodels: [],
        },
      ],
      submodels: [
        {
          modelType: 'Submodel',
          id: 'urn:interop:sm',
          idShort: 'Sm',
          description: [
            { language: 'en', text: 'kept' },
            { language: 'de', text: '' },
          ],
          embeddedDataSpecifications: [],
          semanticId: { type: 'ExternalReference', keys: [] },
          submodelElements: [
            { modelType: 'Property', idShort: 'Empty', valueType: 'xs:string', value: '' },
            { modelType: 'MultiLanguageProperty', idShort: 'NoText', value: [{ language: 'en', text: '' }] },
            { modelType: 'SubmodelElementCollection', idShort: 'NoValue', value: [] },
            {
              modelType: 'SubmodelElementList',
              idShort: 'List',
              typeValueListElement: 'SubmodelElementCollection',
              value: [{ modelType: 'SubmodelElementCollection', idShort: '', value: [{ modelType: 'Range', idShort: 'R', valueType: 'xs:int', min: '' }] }],
            },
          ],
        },
        { modelType: 'Submodel', id: 'urn:interop:empty', submodelElements: [] },
      ],
    };
    await upload(tenant, Buffer.from(JSON.stringify(environment)), 'application/json', 'env.json');
    const env = JSON.parse((await exported(tenant, FORMATS.json)).toString());
    const shell = env.assetAdministrationShells[0];
    expect(shell).not.toHaveProperty('idShort');
    expect(shell).not.toHaveProperty('description');
    expect(shell).not.toHaveProperty('displayName');
    expect(shell).not.toHaveProperty('extensions');
    expect(shell).not.toHaveProperty('submodels');
    expect(shell.assetInformation).toEqual({ assetKind: 'Instance', globalAssetId: 'urn:interop:asset' });
    const [sm, empty] = env.submodels;
    expect(sm.description).toEqual([{ language: 'en', text: 'kept' }]);
    expect(sm).not.toHaveProperty('embeddedDataSpecifications');
    // Required: a Reference without keys is the stored content's own violation, written as it is.
    expect(sm.semanticId).toEqual({ type: 'ExternalReference', keys: [] });
    expect(sm.submodelElements[0]).toEqual({ modelType: 'Property', idShort: 'Empty', valueType: 'xs:string', value: '' });
    expect(sm.submodelElements[1]).toEqual({ modelType: 'MultiLanguageProperty', idShort: 'NoText' });
    expect(sm.submodelElements[2]).toEqual({ modelType: 'SubmodelElementCollection', idShort: 'NoValue' });
    expect(sm.submodelElements[3].value).toEqual([{ modelType: 'SubmodelElementCollection', value: [{ modelType: 'Range', idShort: 'R', valueType: 'xs:int', min: '' }] }]);
    expect(empty).toEqual({ modelType: 'Submodel', id: 'urn:interop:empty' });
    // The stored documents are unchanged.
    const storedShell = await json(fetch(`${server.api(tenant.name)}/shells/${b64('urn:interop:shell')}`));
    expect(storedShell.idShort).toBe('');
    // The XML export says the same.
    const xml = (await exported(tenant, FORMATS.xml)).toString();
    expect(xml).not.toMatch(/<idShort><\/idShort>|<idShort\/>|<description\/>|<submodelElements\/>|<text><\/text>/);
    expect(xml).toContain('<keys/>');
  });
});

describe('an AASX export is consistent: every File value that names a path in the package has its part', () => {
  it('the BaSyx Python SDK full example uploaded as JSON (File values /TestFile.pdf without a file): the AASX exports leave those values out, JSON keeps them', async () => {
    const tenant = await server.createTenant();
    await upload(tenant, fs.readFileSync(BASYX_FULL_EXAMPLE), 'application/json', 'test_demo_full_example.json');
    expect((await exported(tenant, FORMATS.json)).toString()).toContain('"value":"/TestFile.pdf"');
    for (const accept of [FORMATS.aasxJson, FORMATS.aasxXml]) {
      const { spec, dangling } = await packageProblems(await exported(tenant, accept));
      expect(dangling, accept).toEqual([]);
      expect(/"value":"\/TestFile\.pdf"|<value>\/TestFile\.pdf<\/value>/.test(spec), accept).toBe(false);
      // URIs stay as they are: they name no part.
      expect(spec.includes('file:///TestFile.pdf'), accept).toBe(true);
    }
  });

  it('a package whose File values name parts it does not hold (IDTA Handover Documentation sample): its exports are consistent', async () => {
    const tenant = await server.createTenant();
    await upload(tenant, fs.readFileSync(path.join(AASX_DIR, 'IDTA_02004-2-0_Template_sample_HandoverDocumentation.aasx')), 'application/asset-administration-shell-package', 'handover.aasx');
    for (const accept of [FORMATS.aasxJson, FORMATS.aasxXml]) {
      const { dangling } = await packageProblems(await exported(tenant, accept));
      expect(dangling, accept).toEqual([]);
    }
  });
});

describe('concept descriptions on export: the referenced ones by default, all with allConceptDescriptions=true', () => {
  it('IDTA Digital Nameplate 3.0.1 and a concept description nothing references: exported by ids, all of them only when asked', async () => {
    const tenant = await server.createTenant();
    const imported = await upload(tenant, fs.readFileSync(path.join(AASX_DIR, 'IDTA_02006-3-0-1_Template_Digital_Nameplate.aasx')), 'application/asset-administration-shell-package', 'nameplate.aasx');
    const extra = { modelType: 'ConceptDescription', id: 'urn:interop:unreferenced', idShort: 'Unreferenced' };
    const posted = await fetch(`${server.api(tenant.name)}/concept-descriptions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(extra) });
    expect(posted.status).toBe(201);
    const body = imported as { shells: { id: string }[]; submodels: { id: string }[]; conceptDescriptions: { id: string }[] };
    const all = [...body.conceptDescriptions.map((cd) => cd.id), extra.id].sort();
    const ids = [...body.shells.map((s) => `aasIds=${b64(s.id)}`), ...body.submodels.map((s) => `submodelIds=${b64(s.id)}`)].join('&');
    const cdsOf = (env: { conceptDescriptions?: { id: string }[] }) => (env.conceptDescriptions ?? []).map((cd) => cd.id).sort();

    const referenced = cdsOf(JSON.parse((await exported(tenant, FORMATS.json, `?${ids}`)).toString()));
    expect(referenced.length).toBeGreaterThan(0);
    expect(referenced).not.toContain(extra.id);
    expect(cdsOf(JSON.parse((await exported(tenant, FORMATS.json, `?${ids}&allConceptDescriptions=true`)).toString()))).toEqual(all);
    const packaged = await packageProblems(await exported(tenant, FORMATS.aasxJson, `?${ids}&allConceptDescriptions=true`));
    expect(cdsOf(JSON.parse(packaged.spec))).toEqual(all);
    expect(cdsOf(JSON.parse((await exported(tenant, FORMATS.json, `?${ids}&allConceptDescriptions=false`)).toString()))).toEqual(referenced);

    for (const bad of ['allConceptDescriptions=maybe', 'allConceptDescriptions=true&includeConceptDescriptions=false']) {
      const res = await fetch(`${server.api(tenant.name)}/serialization?${ids}&${bad}`, { headers: { accept: FORMATS.json } });
      expect(res.status, bad).toBe(400);
      expect((await json(res)).messages[0].text, bad).toMatch(/allConceptDescriptions/);
    }
  });
});
