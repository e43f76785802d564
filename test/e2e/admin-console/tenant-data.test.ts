import fs from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { TenantEntity } from '../../../src/management/tenants/tenant.entity';
import { checkScreen, goTo, launchBrowser, openConsole, signInThroughUi, waitForHeading, type ConsolePage } from '../../support/admin-browser';
import { assignRole, graphql } from '../../support/grants';
import { newUser, type TestUser } from '../../support/identity';
import { packageWriter } from '../../support/package-writer';
import { TestServer, b64, sampleShell, startTestServer } from '../../support/server';
import { hasTools } from '../../support/system-tools';

/**
 * The tenant data screens in a browser, as a contributor of the tenant: AASX import (its warnings, a refusal), the
 * shells list (filter, paging, export as AASX, JSON and XML), a shell's submodel tree with typed values and a
 * Property edit (and a conflicting one), the files (upload, download, delete); and as a reader, none of the writes.
 */

let server: TestServer;
let browser: Browser;
let tenant: TenantEntity;
let contributor: TestUser;
let reader: TestUser;
let token: string;
let console_: ConsolePage;

const packages = packageWriter('admin-tenant-data-');
const SHELL_ID = 'urn:e2e:data:pump';
const SUBMODEL_ID = 'urn:e2e:data:pump:technical';

/** The tenant's AAS API as the contributor (JSON in and out). */
async function api(method: string, path: string, body?: unknown) {
  const res = await fetch(`${server.api(tenant.name)}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

const propertyValue = async (idShortPath: string) => {
  const res = await graphql(server, token, `query($t: String!, $s: String!, $p: String!) { submodelElement(tenant: $t, submodelId: $s, idShortPath: $p) { value } }`, {
    t: tenant.name,
    s: SUBMODEL_ID,
    p: idShortPath,
  });
  // The value-only serialization: numbers for numeric value types, as the AAS JSON's text.
  return String(res.body.data.submodelElement.value);
};

const base = () => `/org/${tenant.organizationId}/tenants/${tenant.name}`;

/** The bytes of the download a click starts. */
async function downloadOf(page: Page, click: () => Promise<void>): Promise<{ name: string; bytes: Buffer }> {
  const [download] = await Promise.all([page.waitForEvent('download', { timeout: 20_000 }), click()]);
  return { name: download.suggestedFilename(), bytes: fs.readFileSync((await download.path())!) };
}

/** The contributor's console, signed in by the first test that needs it (expect.poll runs inside tests only). */
async function contributorConsole(): Promise<ConsolePage> {
  if (!console_) {
    console_ = await openConsole(browser, server.url);
    await signInThroughUi(console_.page, server.url, contributor);
  }
  return console_;
}

describe.skipIf(!hasTools('chromium'))('admin console: tenant data (shells, shell tree, files, AASX import)', () => {
  beforeAll(async () => {
    server = await startTestServer(inject('databaseUrl'));
    browser = await launchBrowser();
    tenant = await server.createTenant({ showcase: false, prefix: 'data' });
    contributor = await newUser(server, { displayName: 'Data Contributor' });
    reader = await newUser(server, { displayName: 'Data Reader' });
    await assignRole(server, tenant.organizationId, { type: 'user', id: contributor.id }, 'contributor', tenant.id);
    await assignRole(server, tenant.organizationId, { type: 'user', id: reader.id }, 'reader', tenant.id);
    token = await contributor.token();
  });
  afterAll(async () => {
    await console_?.context.close();
    await browser?.close();
    await server?.close();
  });

  it('imports an AASX package: what was stored, its warnings listed; the shell is stored', async () => {
    const { page, problems } = await contributorConsole();
    // A concept description whose embedded data specification lacks its `dataSpecification`: the tolerant import
    // leaves that out and says so.
    const env = {
      assetAdministrationShells: [sampleShell('urn:e2e:data:imported', { idShort: 'Imported', submodels: [{ type: 'ModelReference', keys: [{ type: 'Submodel', value: 'urn:e2e:data:imported:docs' }] }] })],
      submodels: [
        {
          modelType: 'Submodel',
          id: 'urn:e2e:data:imported:docs',
          idShort: 'Documents',
          submodelElements: [{ modelType: 'File', idShort: 'Manual', contentType: 'application/pdf', value: '/aasx/files/manual.pdf' }],
        },
      ],
      conceptDescriptions: [
        {
          modelType: 'ConceptDescription',
          id: 'urn:e2e:data:imported:cd',
          idShort: 'Speed',
          embeddedDataSpecifications: [{ dataSpecificationContent: { modelType: 'DataSpecificationIec61360', preferredName: [{ language: 'en', text: 'Speed' }] } }],
        },
      ],
    };
    const file = await packages.write({ format: 'json', content: JSON.stringify(env) }, [{ path: '/aasx/files/manual.pdf', text: '%PDF-1.4 the manual' }]);
    await goTo(page, server.url, `${base()}/import`, `Import AASX into ${tenant.name}`);
    await page.getByLabel('AASX package').setInputFiles({ name: 'pump.aasx', mimeType: 'application/asset-administration-shell-package', buffer: fs.readFileSync(file) });
    // The server's answer held back for a few seconds, as a large package's would take: the page says which step
    // runs and how long it has taken so far.
    const held = (url: URL) => url.pathname.endsWith('/sphere/api/v1.0/import');
    await page.route(held, async (route) => {
      const answer = await route.fetch();
      await new Promise((resolve) => setTimeout(resolve, 3_000));
      await route.fulfill({ response: answer });
    });
    await page.getByRole('button', { name: 'Import', exact: true }).click();
    await expect.poll(() => page.locator('.upload-progress label').textContent().catch(() => ''), { timeout: 20_000 }).toMatch(/^Step [12] of 2, .*\(0:0[1-9] elapsed\)$/);
    await expect.poll(() => page.getByRole('status').first().textContent(), { timeout: 20_000 }).toContain('Imported pump.aasx');
    await page.unroute(held);
    const warnings = page.getByRole('list', { name: 'Import warnings' });
    // The missing dataSpecification is repaired from the IEC 61360 content; the repaired specification then lacks the
    // English definition that content needs (AASc-3a-008), a warning of its own.
    expect(await warnings.textContent()).toContain('$.conceptDescriptions[0].embeddedDataSpecifications[0]: the dataSpecification reference is missing; repaired with');
    expect(await warnings.textContent()).toContain('AASc-3a-008');
    expect(await page.getByRole('heading', { name: 'Warnings (2)' }).count()).toBe(1);
    expect(await page.getByRole('region', { name: 'Shells stored' }).textContent()).toContain('urn:e2e:data:imported');
    expect(await page.getByRole('region', { name: 'Files stored' }).textContent()).toContain('/aasx/files/manual.pdf');
    await checkScreen(page, 'aasx-import-warnings');

    const stored = await api('GET', `/shells/${b64('urn:e2e:data:imported')}`);
    expect(stored.status).toBe(200);
    expect(stored.body.idShort).toBe('Imported');
    const cd = await api('GET', `/concept-descriptions/${b64('urn:e2e:data:imported:cd')}`);
    expect(cd.status).toBe(200);
    expect(cd.body.embeddedDataSpecifications).toEqual([
      {
        dataSpecification: { type: 'ExternalReference', keys: [{ type: 'GlobalReference', value: 'https://admin-shell.io/DataSpecificationTemplates/DataSpecificationIEC61360/3/0' }] },
        dataSpecificationContent: { modelType: 'DataSpecificationIec61360', preferredName: [{ language: 'en', text: 'Speed' }] },
      },
    ]);

    // The link leads to the shell's page.
    await page.getByRole('region', { name: 'Shells stored' }).getByRole('link', { name: 'urn:e2e:data:imported' }).click();
    await waitForHeading(page, 'Shell Imported');
    expect(problems).toEqual([]);
    // A File's value is a link to its content, fetched with the console's token (the tenant is not in showcase mode).
    await page.getByRole('button', { name: 'Documents' }).click();
    // (The import stored the file in the repository: the value is its tfp now.)
    const manual = page.locator('ul.tree.root a[href$="/submodel-elements/Manual/attachment"]');
    await expect.poll(() => manual.count(), { timeout: 15_000 }).toBe(1);
    const got = await downloadOf(page, () => manual.click());
    expect(got.bytes.toString()).toBe('%PDF-1.4 the manual');
    expect(problems).toEqual([]);
  });

  it('shows why a package is refused (no zip; more than one shell), and stores nothing', async () => {
    const { page, problems } = await contributorConsole();
    await goTo(page, server.url, `${base()}/import`, `Import AASX into ${tenant.name}`);
    const refusal = page.getByRole('alert');
    await page.getByLabel('AASX package').setInputFiles({ name: 'broken.aasx', mimeType: 'application/octet-stream', buffer: Buffer.from('PK\u0003\u0004 this is no zip archive at all') });
    await page.getByRole('button', { name: 'Import', exact: true }).click();
    await expect.poll(() => page.getByRole('heading', { name: 'The package was not imported' }).count(), { timeout: 20_000 }).toBe(1);
    expect(await refusal.textContent()).toContain('Not a valid AASX package: The package is not a zip file');
    await checkScreen(page, 'aasx-import-refused');

    const twoShells = await packages.write({
      format: 'json',
      content: JSON.stringify({ assetAdministrationShells: [sampleShell('urn:e2e:data:twin:1'), sampleShell('urn:e2e:data:twin:2')] }),
    });
    await page.getByLabel('AASX package').setInputFiles({ name: 'twins.aasx', mimeType: 'application/asset-administration-shell-package', buffer: fs.readFileSync(twoShells) });
    await page.getByRole('button', { name: 'Import', exact: true }).click();
    await expect.poll(() => refusal.textContent(), { timeout: 20_000 }).not.toContain('not a zip file');
    expect(await refusal.textContent()).toContain('The package holds 2 shells; an AASX import takes exactly one.');
    expect(await page.getByRole('list', { name: 'Import warnings' }).count()).toBe(0);
    // Nothing of either was stored: the tenant holds the shell of the first import only.
    const shells = await api('GET', '/shells');
    expect(shells.body.result.map((s: { id: string }) => s.id)).toEqual(['urn:e2e:data:imported']);
    expect(problems).toEqual([]);
  });

  it("shows, while the server imports a package, the server's phase with its counts and the time elapsed", async () => {
    const { page, problems } = await contributorConsole();
    // A tenant of its own, so the shells of the other tests stay as they are.
    const slow = await server.createTenant({ showcase: false, prefix: 'slow' });
    await assignRole(server, slow.organizationId, { type: 'user', id: contributor.id }, 'contributor', slow.id);
    const file = await packages.write({
      format: 'json',
      content: JSON.stringify({
        assetAdministrationShells: [sampleShell('urn:e2e:data:slow')],
        submodels: [{ modelType: 'Submodel', id: 'urn:e2e:data:slow:sm', idShort: 'Slow' }],
      }),
    });
    // The server holds the import after its shell is stored, before its submodel, as a large package's storing takes
    // long, until the test lets it go on.
    const submodels = server.services.submodels;
    const putMany = submodels.putMany;
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    submodels.putMany = async (...args) => {
      await released;
      return putMany.apply(submodels, args);
    };
    try {
      await goTo(page, server.url, `/org/${slow.organizationId}/tenants/${slow.name}/import`, `Import AASX into ${slow.name}`);
      await page.getByLabel('AASX package').setInputFiles({ name: 'slow.aasx', mimeType: 'application/asset-administration-shell-package', buffer: fs.readFileSync(file) });
      await page.getByRole('button', { name: 'Import', exact: true }).click();
      const label = page.locator('.upload-progress label');
      await expect
        .poll(() => label.textContent().catch(() => ''), { timeout: 20_000 })
        .toMatch(/^Step 2 of 2, the server imports the package: storing its documents and files in one go \(1 of 2 documents\) \(\d+:\d\d elapsed\)$/);
      // The elapsed time goes on while the server works.
      const seconds = (text: string | null) => Number(/\((\d+):(\d\d) elapsed\)/.exec(text ?? '')?.slice(1).reduce((m, s) => String(Number(m) * 60 + Number(s))));
      const first = seconds(await label.textContent());
      await expect.poll(async () => seconds(await label.textContent().catch(() => '')), { timeout: 20_000 }).toBeGreaterThan(first);
      await checkScreen(page, 'aasx-import-progress');
      release();
      await expect.poll(() => page.getByRole('status').first().textContent(), { timeout: 20_000 }).toContain('Imported slow.aasx');
      expect(await page.locator('.upload-progress').count()).toBe(0);
    } finally {
      release();
      submodels.putMany = putMany;
    }
    expect(problems).toEqual([]);
  });

  it('lists the shells filtered and paged', async () => {
    const { page, problems } = await contributorConsole();
    for (let i = 1; i <= 12; i++) {
      const n = String(i).padStart(2, '0');
      expect((await api('POST', '/shells', sampleShell(`urn:e2e:data:valve:${n}`, { idShort: `Valve${n}` }))).status).toBe(201);
    }
    await goTo(page, server.url, `${base()}/shells`, `Shells of ${tenant.name}`);
    const rows = page.getByRole('region', { name: 'Shells', exact: true }).locator('tbody tr');
    await page.getByLabel('Per page').selectOption('10');
    await expect.poll(() => rows.count()).toBe(10);
    // 13 shells: the imported one and 12 valves.
    await page.getByRole('button', { name: 'Next page' }).click();
    await expect.poll(() => rows.count()).toBe(3);
    expect(await page.getByRole('button', { name: 'Next page' }).isDisabled()).toBe(true);
    await page.getByRole('button', { name: 'Previous page' }).click();
    await expect.poll(() => rows.count()).toBe(10);
    expect(await rows.first().textContent()).toContain('Imported');

    await page.getByLabel('Search by').selectOption('idShort');
    await page.getByLabel('Text').fill('Valve1');
    await page.getByRole('button', { name: 'Filter' }).click();
    await expect.poll(() => rows.allTextContents()).toEqual([expect.stringContaining('Valve10'), expect.stringContaining('Valve11'), expect.stringContaining('Valve12')]);
    await page.getByLabel('Search by').selectOption('id');
    await page.getByLabel('Text').fill('valve:0');
    await page.getByRole('button', { name: 'Filter' }).click();
    await expect.poll(() => rows.count()).toBe(9);
    await page.getByLabel('Search by').selectOption('asset');
    await page.getByLabel('Text').fill('urn:e2e:data:valve:07#asset');
    await page.getByRole('button', { name: 'Filter' }).click();
    await expect.poll(() => rows.allTextContents()).toEqual([expect.stringContaining('Valve07')]);
    await page.getByLabel('Text').fill('nothing-like-this');
    await page.getByRole('button', { name: 'Filter' }).click();
    await expect.poll(() => page.getByText('No shell matches this filter.').count()).toBe(1);
    await page.getByRole('button', { name: 'Show all' }).click();
    await expect.poll(() => rows.count()).toBe(10);
    await checkScreen(page, 'shells');

    await page.getByRole('link', { name: 'Valve03' }).click();
    await waitForHeading(page, 'Shell Valve03');
    expect(await page.locator('dl.facts').textContent()).toContain('urn:e2e:data:valve:03#asset');
    expect(problems).toEqual([]);
  });

  it("shows a shell's submodels as a tree with typed values, and saves a Property's value", async () => {
    const { page, problems } = await contributorConsole();
    const submodel = {
      modelType: 'Submodel',
      id: SUBMODEL_ID,
      idShort: 'TechnicalData',
      submodelElements: [
        { modelType: 'Property', idShort: 'Speed', valueType: 'xs:int', value: '10' },
        { modelType: 'MultiLanguageProperty', idShort: 'Title', value: [{ language: 'en', text: 'Pump' }, { language: 'de', text: 'Pumpe' }] },
        { modelType: 'Range', idShort: 'Temperature', valueType: 'xs:double', min: '-20', max: '80' },
        { modelType: 'File', idShort: 'Manual', contentType: 'application/pdf', value: 'https://example.com/manual.pdf' },
        { modelType: 'Blob', idShort: 'Logo', contentType: 'image/png', value: 'aGVsbG8=' },
        { modelType: 'ReferenceElement', idShort: 'Maker', value: { type: 'ExternalReference', keys: [{ type: 'GlobalReference', value: 'urn:maker:acme' }] } },
        { modelType: 'SubmodelElementCollection', idShort: 'Nameplate', value: [{ modelType: 'Property', idShort: 'Serial', valueType: 'xs:string', value: 'SN-1' }] },
        {
          modelType: 'SubmodelElementList',
          idShort: 'Readings',
          typeValueListElement: 'Property',
          valueTypeListElement: 'xs:int',
          value: [
            { modelType: 'Property', valueType: 'xs:int', value: '1' },
            { modelType: 'Property', valueType: 'xs:int', value: '2' },
          ],
        },
        {
          modelType: 'Entity',
          idShort: 'Motor',
          entityType: 'SelfManagedEntity',
          globalAssetId: 'urn:motor:1',
          statements: [{ modelType: 'Property', idShort: 'Power', valueType: 'xs:double', value: '1.5' }],
        },
      ],
    };
    expect((await api('POST', '/submodels', submodel)).status).toBe(201);
    const shell = sampleShell(SHELL_ID, { idShort: 'Pump', submodels: [{ type: 'ModelReference', keys: [{ type: 'Submodel', value: SUBMODEL_ID }] }] });
    expect((await api('POST', '/shells', shell)).status).toBe(201);

    await goTo(page, server.url, `${base()}/shells/${b64(SHELL_ID)}`, 'Shell Pump');
    const tree = page.locator('ul.tree.root');
    const toggle = page.getByRole('button', { name: 'TechnicalData' });
    expect(await toggle.getAttribute('aria-expanded')).toBe('false');
    // Keyboard: focus the toggle and press Enter.
    await toggle.focus();
    await page.keyboard.press('Enter');
    await expect.poll(() => toggle.getAttribute('aria-expanded')).toBe('true');
    const nameplate = page.getByRole('button', { name: 'Nameplate' });
    expect(await nameplate.getAttribute('aria-expanded')).toBe('false');
    expect(await tree.textContent()).not.toContain('SN-1');
    await nameplate.click();
    await expect.poll(() => tree.textContent()).toContain('SN-1');
    await page.getByRole('button', { name: 'Collapse all' }).click();
    await expect.poll(() => tree.textContent()).not.toContain('Speed');
    await page.getByRole('button', { name: 'Expand all' }).click();
    const text = (await tree.textContent())!;
    // A File naming an outside address links there.
    expect(await tree.getByRole('link', { name: 'https://example.com/manual.pdf' }).getAttribute('href')).toBe('https://example.com/manual.pdf');
    for (const expected of [
      'SpeedPropertyxs:int10',
      'TitleMultiLanguageProperty',
      'enPump',
      'dePumpe',
      'TemperatureRangexs:doublemin -20 max 80',
      'ManualFileapplication/pdfhttps://example.com/manual.pdf',
      'LogoBlobimage/png',
      'MakerReferenceElementExternalReferenceGlobalReference urn:maker:acme',
      'SerialPropertyxs:stringSN-1',
      'ReadingsSubmodelElementListProperty of xs:int2 items',
      '[0]Propertyxs:int1',
      '[1]Propertyxs:int2',
      'MotorEntitySelfManagedEntityurn:motor:1',
      'PowerPropertyxs:double1.5',
    ]) {
      expect(text).toContain(expected);
    }
    await checkScreen(page, 'shell-tree');

    // A bad value for the valueType: the server's message, nothing stored.
    await page.getByRole('button', { name: 'Edit the value of Speed' }).click();
    await page.getByLabel('Value of Speed').fill('abc');
    await page.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => page.getByRole('alert').count()).toBe(1);
    expect(await page.getByRole('alert').textContent()).toContain('Value must be consistent with the value type');
    expect(await propertyValue('Speed')).toBe('10');
    // A good one is stored.
    await page.getByLabel('Value of Speed').fill('42');
    await page.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => tree.textContent()).toContain('SpeedPropertyxs:int42');
    expect(await propertyValue('Speed')).toBe('42');
    // In a list, by index.
    await page.getByRole('button', { name: 'Edit the value of Readings[1]' }).click();
    await page.getByLabel('Value of Readings[1]').fill('20');
    await page.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => tree.textContent()).toContain('[1]Propertyxs:int20');
    expect(await propertyValue('Readings[1]')).toBe('20');
    expect(problems).toEqual([]);
  });

  it('does not overwrite a change made since the shell was loaded: the conflict panel shows it', async () => {
    const { page, problems } = await contributorConsole();
    await goTo(page, server.url, `${base()}/shells/${b64(SHELL_ID)}`, 'Shell Pump');
    await page.getByRole('button', { name: 'Expand all' }).click();
    await page.getByRole('button', { name: 'Edit the value of Nameplate.Serial' }).click();
    // Someone else changes the submodel meanwhile.
    const other = await graphql(
      server,
      token,
      `mutation($t: String!, $s: String!) { patchSubmodelElementValue(tenant: $t, submodelId: $s, idShortPath: "Nameplate.Serial", value: "SN-2") { etag } }`,
      { t: tenant.name, s: SUBMODEL_ID },
    );
    expect(other.body.errors).toBeUndefined();
    await page.getByLabel('Value of Nameplate.Serial').fill('SN-mine');
    await page.getByRole('button', { name: 'Save' }).click();
    const panel = page.locator('.conflict');
    await expect.poll(() => panel.count()).toBe(1);
    const row = (await panel.locator('tbody tr').textContent())!;
    expect(row).toContain('Nameplate.Serial');
    expect(row).toContain('SN-1'); // when opened
    expect(row).toContain('SN-2'); // now
    expect(row).toContain('SN-mine'); // the edit
    expect(await propertyValue('Nameplate.Serial')).toBe('SN-2');
    await checkScreen(page, 'shell-conflict');
    await page.getByRole('button', { name: 'Reload the current version' }).click();
    await expect.poll(() => page.locator('ul.tree.root').textContent()).toContain('SerialPropertyxs:stringSN-2');
    expect(await panel.count()).toBe(0);
    expect(problems).toEqual([]);
  });

  it('exports shells as AASX, JSON and XML', async () => {
    const { page, problems } = await contributorConsole();
    await goTo(page, server.url, `${base()}/shells`, `Shells of ${tenant.name}`);
    await page.getByLabel('Search by').selectOption('id');
    await page.getByLabel('Text').fill(SHELL_ID);
    await page.getByRole('button', { name: 'Filter' }).click();
    const rows = page.getByRole('region', { name: 'Shells', exact: true }).locator('tbody tr');
    await expect.poll(() => rows.count()).toBe(1);
    expect(await page.getByRole('button', { name: 'Download' }).isDisabled()).toBe(true);
    await page.getByRole('checkbox', { name: 'Choose every shell on this page' }).check();
    expect(await page.getByRole('checkbox', { name: 'Choose Pump for export' }).isChecked()).toBe(true);

    await page.getByLabel('Format').selectOption('json');
    const json = await downloadOf(page, () => page.getByRole('button', { name: 'Download' }).click());
    const env = JSON.parse(json.bytes.toString('utf8'));
    expect(env.assetAdministrationShells.map((s: { id: string }) => s.id)).toEqual([SHELL_ID]);
    expect(env.submodels.map((s: { id: string }) => s.id)).toEqual([SUBMODEL_ID]);
    expect(env.submodels[0].submodelElements[0]).toMatchObject({ idShort: 'Speed', value: '42' });

    await page.getByLabel('Format').selectOption('xml');
    const xml = await downloadOf(page, () => page.getByRole('button', { name: 'Download' }).click());
    const xmlText = xml.bytes.toString('utf8');
    expect(xmlText).toMatch(/^<\?xml|^<environment/);
    expect(xmlText).toContain(`<id>${SHELL_ID}</id>`);
    expect(xmlText).toContain(`<id>${SUBMODEL_ID}</id>`);

    await page.getByLabel('Format').selectOption('aasx');
    const aasx = await downloadOf(page, () => page.getByRole('button', { name: 'Download' }).click());
    expect(aasx.name).toMatch(/\.aasx$/);
    expect(aasx.bytes.subarray(0, 4).toString('latin1')).toBe('PK\u0003\u0004');
    expect(aasx.bytes.includes(Buffer.from('[Content_Types].xml'))).toBe(true);
    expect(problems).toEqual([]);
  });

  it('lists the files with their metadata, uploads, downloads and deletes one', async () => {
    const { page, problems } = await contributorConsole();
    await goTo(page, server.url, `${base()}/files`, `Files of ${tenant.name}`);
    const files = page.getByRole('region', { name: 'Files of this tenant' });
    // The import stored the package's manual.
    await expect.poll(() => files.textContent()).toContain('manual.pdf');
    const content = Buffer.from('torque table\n1;2;3\n');
    await page.getByLabel('File', { exact: true }).setInputFiles({ name: 'torque.csv', mimeType: 'text/csv', buffer: content });
    await page.getByLabel('Display name (optional)').fill('Torque table');
    await page.getByRole('button', { name: 'Upload', exact: true }).click();
    await expect.poll(() => page.getByRole('status').first().textContent()).toContain('Uploaded torque.csv');
    await expect.poll(() => files.textContent()).toContain('Torque table');
    const row = (await files.locator('tbody tr', { hasText: 'torque.csv' }).textContent())!;
    expect(row).toContain('text/csv');
    expect(row).toContain(`${content.length} bytes`);
    expect(row).toMatch(/file:\/sphere\/[^/]+\/[^/]+\/torque\.csv/);
    await checkScreen(page, 'files');

    const got = await downloadOf(page, () => page.getByRole('button', { name: 'Download torque.csv' }).click());
    expect(got.name).toBe('torque.csv');
    expect(got.bytes.equals(content)).toBe(true);

    await page.getByRole('button', { name: 'Delete torque.csv' }).click();
    await checkScreen(page, 'files-delete');
    await page.getByRole('button', { name: 'Delete the file' }).click();
    await expect.poll(() => files.textContent()).not.toContain('torque.csv');
    const listed = await graphql(server, token, `query($t: String!) { files(tenant: $t) { result { fileName } } }`, { t: tenant.name });
    expect(listed.body.data.files.result.map((f: { fileName: string }) => f.fileName)).toEqual(['manual.pdf']);
    expect(problems).toEqual([]);
  });

  it('shows a reader no edit, upload, import or delete action', async () => {
    const readerConsole = await openConsole(browser, server.url);
    const { page, problems } = readerConsole;
    await signInThroughUi(page, server.url, reader);
    await goTo(page, server.url, `${base()}/shells/${b64(SHELL_ID)}`, 'Shell Pump');
    await page.getByRole('button', { name: 'Expand all' }).click();
    await expect.poll(() => page.locator('ul.tree.root').textContent()).toContain('SpeedPropertyxs:int42');
    expect(await page.getByRole('button', { name: /^Edit/ }).count()).toBe(0);

    await goTo(page, server.url, `${base()}/files`, `Files of ${tenant.name}`);
    await expect.poll(() => page.getByRole('region', { name: 'Files of this tenant' }).textContent()).toContain('manual.pdf');
    expect(await page.getByRole('button', { name: /^Delete/ }).count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Upload' }).count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Download manual.pdf' }).count()).toBe(1);

    await goTo(page, server.url, `${base()}/import`, `Import AASX into ${tenant.name}`);
    expect(await page.getByRole('button', { name: 'Import' }).count()).toBe(0);
    expect(await page.getByLabel('AASX package').count()).toBe(0);
    expect(await page.getByRole('note').textContent()).toContain('contributor role');
    expect(problems).toEqual([]);
    await readerConsole.context.close();
  });
});
