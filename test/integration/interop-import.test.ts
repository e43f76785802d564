import fs from 'node:fs';
import path from 'node:path';
import JSZip from 'jszip';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { TenantEntity } from '../../src/management/tenants/tenant.entity';
import { TestServer, json, startTestServer } from '../support/server';
import { AASX_DIR } from '../support/testdata';

/**
 * What other tools write, the import reads: real packages (IDTA templates, the BaSyx Python SDK's test files),
 * changed by `repackaged` into the shapes other tools' packages have where the repository holds no such package
 * itself (each test says which). On `/upload` (the BaSyx-compatible route) and the platform's own import route.
 */

const FIXTURES = path.resolve(__dirname, '../fixtures');
const CONTACT = path.join(AASX_DIR, 'IDTA_02002-1-0-1_Template_ContactInformation.aasx');
const CONTACT_SPEC = 'aasx/ContactInformationAAS/ContactInformationAAS.aas.xml';
const NAMEPLATE = path.join(AASX_DIR, 'IDTA_02006-3-0-1_Template_Digital_Nameplate.aasx');
const NAMEPLATE_SPEC = 'aasx/DigitalNameplateAAS/DigitalNameplateAAS.aas.xml';
const HSEBOM_V31 = path.join(AASX_DIR, 'IDTA_02011-1-1-1_Template_HSEBoM_forAASMetamodelV3.1.aasx');
const IEC_61360 = 'https://admin-shell.io/DataSpecificationTemplates/DataSpecificationIEC61360/3/0';
const AASX = 'application/asset-administration-shell-package';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer(inject('databaseUrl'));
});
afterAll(() => server?.close());

/** A package (a file) with its entries changed: `edit` gets each entry's name and text and returns the new text (undefined: as it is). */
async function repackaged(file: string, edit: (name: string, text: string) => string | undefined, add: Record<string, string | Buffer> = {}): Promise<Buffer> {
  const zip = await JSZip.loadAsync(fs.readFileSync(file));
  for (const entry of Object.values(zip.files)) {
    if (entry.dir || !/\.(xml|rels|json)$/.test(entry.name)) continue;
    const changed = edit(entry.name, await entry.async('string'));
    if (changed !== undefined) zip.file(entry.name, changed);
  }
  for (const [name, data] of Object.entries(add)) zip.file(name, data);
  return zip.generateAsync({ type: 'nodebuffer', compression: 'DEFLATE' });
}

/** A folder of the fixtures zipped as it is (an unpacked package). */
async function zipped(folder: string): Promise<Buffer> {
  const zip = new JSZip();
  for (const entry of fs.readdirSync(folder, { recursive: true, withFileTypes: true })) {
    if (entry.isFile()) zip.file(path.relative(folder, path.join(entry.parentPath, entry.name)).split(path.sep).join('/'), fs.readFileSync(path.join(entry.parentPath, entry.name)));
  }
  return zip.generateAsync({ type: 'nodebuffer', compression: 'DEFLATE' });
}

async function send(tenant: TenantEntity, bytes: Buffer | string, type: string, name: string, route: 'upload' | 'platform' = 'upload'): Promise<{ status: number; body: any }> {
  const form = new FormData();
  form.append('file', new Blob([bytes], { type }), name);
  const url = route === 'upload' ? `${server.api(tenant.name)}/upload` : `${server.url}/tenants/${tenant.name}/sphere/api/v1.0/import`;
  const res = await fetch(url, { method: 'POST', body: form });
  return { status: res.status, body: await json(res) };
}

/** Every warning of an import answer, whatever its kind. */
function warningsOf(body: unknown): string[] {
  if (typeof body === 'string') return [body];
  if (body === null || typeof body !== 'object') return [];
  return Object.values(body).flatMap(warningsOf);
}

async function list(tenant: TenantEntity, what: string): Promise<any[]> {
  return (await json(fetch(`${server.api(tenant.name)}/${what}?limit=250`))).result;
}

describe('tolerant import of what other tools write', () => {
  it('embedded data specifications without dataSpecification (IDTA Contact Information with every <dataSpecification> taken out, as two tools write them): repaired with the IEC 61360 reference, with a warning', async () => {
    let removed = 0;
    const bytes = await repackaged(CONTACT, (name, text) => {
      if (name !== CONTACT_SPEC) return undefined;
      return text.replace(/<dataSpecification>[\s\S]*?<\/dataSpecification>/g, () => {
        removed++;
        return '';
      });
    });
    expect(removed).toBeGreaterThan(10);
    const tenant = await server.createTenant();
    const { status, body } = await send(tenant, bytes, AASX, 'contact.aasx');
    expect(status, JSON.stringify(body).slice(0, 600)).toBe(200);
    expect(warningsOf(body).filter((w) => w.includes(`the dataSpecification reference is missing; repaired with ${IEC_61360}`))).toHaveLength(removed);
    const cds = await list(tenant, 'concept-descriptions');
    expect(cds.length).toBeGreaterThan(0);
    for (const cd of cds) {
      for (const eds of cd.embeddedDataSpecifications ?? []) expect(eds.dataSpecification).toEqual({ type: 'ExternalReference', keys: [{ type: 'GlobalReference', value: IEC_61360 }] });
    }
  });

  it('the same in JSON: the BaSyx Python SDK full example without its dataSpecification references', async () => {
    const environment = JSON.parse(fs.readFileSync(path.join(FIXTURES, 'basyx-python/test_demo_full_example.json'), 'utf8').replace(/^\uFEFF/, ''));
    let removed = 0;
    const strip = (value: unknown): void => {
      if (Array.isArray(value)) value.forEach(strip);
      else if (value && typeof value === 'object') {
        const object = value as Record<string, unknown>;
        for (const eds of (object.embeddedDataSpecifications as Record<string, unknown>[] | undefined) ?? []) {
          delete eds.dataSpecification;
          removed++;
        }
        Object.values(object).forEach(strip);
      }
    };
    strip(environment);
    expect(removed).toBeGreaterThan(0);
    const { status, body } = await send(await server.createTenant(), JSON.stringify(environment), 'application/json', 'full.json');
    expect(status, JSON.stringify(body).slice(0, 600)).toBe(200);
    expect(warningsOf(body).filter((w) => w.includes('the dataSpecification reference is missing'))).toHaveLength(removed);
  });

  it('two spec parts in one package (as the AASX Package Explorer V2 wrote them; here the Digital Nameplate and Contact Information parts): one environment, with a warning', async () => {
    const contact = await JSZip.loadAsync(fs.readFileSync(CONTACT));
    const contactSpec = await contact.file(CONTACT_SPEC)!.async('string');
    const bytes = await repackaged(
      NAMEPLATE,
      (name, text) =>
        name === 'aasx/_rels/aasx-origin.rels'
          ? text.replace('</Relationships>', '<Relationship Type="http://admin-shell.io/aasx/relationships/aas-spec" Target="/aasx/ContactInformationAAS/ContactInformationAAS.aas.xml" Id="second" /></Relationships>')
          : undefined,
      { [CONTACT_SPEC]: contactSpec },
    );
    const tenant = await server.createTenant();
    const { status, body } = await send(tenant, bytes, AASX, 'two.aasx');
    expect(status, JSON.stringify(body).slice(0, 600)).toBe(200);
    expect(warningsOf(body).some((w) => w.startsWith('The package has 2 AAS spec parts'))).toBe(true);
    const shells = (await list(tenant, 'shells')).map((s) => s.id).sort();
    expect(shells).toEqual(['https://admin-shell.io/idta/aas/ContactInformation/1/0', 'https://admin-shell.io/idta/aas/DigitalNameplate/3/0'].sort());
    // Equal ids in both parts follow the rule within one part: the first is kept, the later one dropped with a warning.
    const copy = await (await JSZip.loadAsync(fs.readFileSync(NAMEPLATE))).file(NAMEPLATE_SPEC)!.async('string');
    const twice = await repackaged(
      NAMEPLATE,
      (name, text) =>
        name === 'aasx/_rels/aasx-origin.rels'
          ? text.replace('</Relationships>', '<Relationship Type="http://admin-shell.io/aasx/relationships/aas-spec" Target="/aasx/copy.aas.xml" Id="copy" /></Relationships>')
          : undefined,
      { 'aasx/copy.aas.xml': copy },
    );
    const again = await send(await server.createTenant(), twice, AASX, 'twice.aasx');
    expect(again.status, JSON.stringify(again.body).slice(0, 600)).toBe(200);
    expect(warningsOf(again.body).some((w) => /dropped: the .* \(its id is the id of/.test(w))).toBe(true);
  });

  it('an empty AASX (the BaSyx Python SDK test_empty_aasx: an origin without a spec part) is taken like an empty JSON environment on /upload; the platform route wants its one shell', async () => {
    const empty = await zipped(path.join(FIXTURES, 'basyx-python/test_empty_aasx'));
    const tenant = await server.createTenant();
    const aasx = await send(tenant, empty, AASX, 'test_empty.aasx');
    expect(aasx.status, JSON.stringify(aasx.body)).toBe(200);
    expect(warningsOf(aasx.body).some((w) => w.includes('the package holds no AAS content'))).toBe(true);
    const plain = await send(tenant, '{}', 'application/json', 'empty.json');
    expect(plain.status).toBe(200);
    expect(await list(tenant, 'shells')).toEqual([]);
    const platform = await send(await server.createTenant(), empty, AASX, 'test_empty.aasx', 'platform');
    expect(platform.status).toBe(400);
    expect(platform.body.messages[0].text).toMatch(/shell/);
  });

  it('a V3.2 document (IDTA HSEBoM V3.1 under https://admin-shell.io/aas/3/2) is read as V3.1, with a warning; another namespace is refused naming every accepted one', async () => {
    const asV32 = await repackaged(HSEBOM_V31, (name, text) => (name.endsWith('.xml') && text.includes('https://admin-shell.io/aas/3/1') ? text.replaceAll('https://admin-shell.io/aas/3/1', 'https://admin-shell.io/aas/3/2') : undefined));
    const tenant = await server.createTenant();
    const { status, body } = await send(tenant, asV32, AASX, 'v32.aasx');
    expect(status, JSON.stringify(body).slice(0, 600)).toBe(200);
    expect(warningsOf(body).some((w) => w.includes('is an AAS V3.2 environment (https://admin-shell.io/aas/3/2): read as V3.1'))).toBe(true);
    expect((await list(tenant, 'submodels')).length).toBeGreaterThan(0);

    const asV39 = await repackaged(HSEBOM_V31, (name, text) => (name.endsWith('.xml') && text.includes('https://admin-shell.io/aas/3/1') ? text.replaceAll('https://admin-shell.io/aas/3/1', 'https://admin-shell.io/aas/3/9') : undefined));
    const refused = await send(await server.createTenant(), asV39, AASX, 'v39.aasx');
    expect(refused.status).toBe(400);
    const text = refused.body.messages[0].text as string;
    for (const namespace of ['https://admin-shell.io/aas/3/0', 'https://admin-shell.io/aas/3/1', 'https://admin-shell.io/aas/3/2', 'http://www.admin-shell.io/aas/2/0']) expect(text).toContain(namespace);
    expect(text).toContain("'https://admin-shell.io/aas/3/9'");
  });

  it('[Content_Types].xml naming the spec part in another case (/AASX/ContactInformationAAS/… for /aasx/…): a warning on /upload, refused on the platform route (paths are case-sensitive)', async () => {
    const bytes = await repackaged(CONTACT, (name, text) =>
      name === '[Content_Types].xml'
        ? text
            .replace('<Default Extension="xml" ContentType="text/xml" />', '')
            .replace('</Types>', '<Override PartName="/AASX/ContactInformationAAS/ContactInformationAAS.aas.xml" ContentType="text/xml" /></Types>')
        : undefined,
    );
    const upload = await send(await server.createTenant(), bytes, AASX, 'case.aasx');
    expect(upload.status, JSON.stringify(upload.body).slice(0, 600)).toBe(200);
    const warning = warningsOf(upload.body).find((w) => w.includes('differs in case'));
    expect(warning).toContain('"/AASX/ContactInformationAAS/ContactInformationAAS.aas.xml"');
    const platform = await send(await server.createTenant(), bytes, AASX, 'case.aasx', 'platform');
    expect(platform.status).toBe(400);
    expect(platform.body.messages[0].text).toMatch(/differs in case from the part "\/aasx\/ContactInformationAAS\/ContactInformationAAS\.aas\.xml"/);
    // The package as published (no override) goes through both routes without that warning.
    const plain = await send(await server.createTenant(), fs.readFileSync(CONTACT), AASX, 'contact.aasx', 'platform');
    expect(plain.status).toBe(200);
    expect(warningsOf(plain.body).some((w) => w.includes('differs in case'))).toBe(false);
  });
});
