import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createDataSource, runMigrations } from '../../src/db/data-source';
import { TENANT_TABLES } from '../../src/db/distribution';
import type { TenantEntity } from '../../src/management/tenants/tenant.entity';
import { enc, sendFile } from '../support/file-suite';
import { newOrganization, type ManagementClient } from '../support/management';
import { packageWriter } from '../support/package-writer';
import { TestServer, b64, json, sampleShell, startTestServer } from '../support/server';
import { StatementRecorder } from '../support/statement-recorder';

/**
 * Every statement a tenant's request sends to PostgreSQL names the tenant (`tenant_id`), so that a distributed
 * database (Citus, sharded by tenant_id) runs it on one shard (src/db/distribution.ts).
 *
 * A sweep of tenant requests over REST (repositories, elements at depth, files, AASX upload and export, packages,
 * registries and discovery with explicit instances, search, query language, push targets, the semantic connector,
 * the DCC conversion) runs against an
 * in-process server while every statement the `pg` driver sends is recorded (pg.Client.prototype.query: TypeORM's
 * statements and the hot reads straight on the pool alike), attributed to the HTTP request it serves by an
 * AsyncLocalStorage entered where the server receives a request.
 *
 * Excluded, being no tenant's request: statements outside any request (start-up, migrations, the test's own set-up
 * through services, and background work: the outbox publisher's listening, the planner-statistics ANALYZE
 * schedule; test servers run no event delivery and no push worker, EVENTS_PUBLISH=false).
 */

const recorder = new StatementRecorder();

/** Single-quoted literals and comments taken out: a table's name inside a JSON key or a text is no mention. */
const code = (sql: string) => sql.replace(/'(?:[^']|'')*'/g, "''").replace(/--[^\n]*/g, '').replace(/\/\*[\s\S]*?\*\//g, '');
const TABLE = new RegExp(`(?<![\\w.$])"?(${TENANT_TABLES.join('|')})"?(?![\\w$])`, 'g');
const TENANT_ID = /\btenant_id\b/;

/** An ECLASS dictionary (CSV) and a DCC (PTB's example certificate), from test/fixtures with their licences. */
const DICTIONARY_CSV = fs.readFileSync(path.join(__dirname, '../fixtures/semantics/eclass-pr-example.csv'), 'utf8');
const DCC = fs.readFileSync(path.join(__dirname, '../fixtures/dcc/dcc_gp_temperature_typical_v12.xml'), 'utf8');

let server: TestServer;
let tenant: TenantEntity;
let owner: ManagementClient;
let organizationId: string;
const packages = packageWriter('tenant-statements-');

beforeAll(async () => {
  recorder.start();
  // Push targets on loopback (nothing is pushed: test servers run no push worker).
  server = await startTestServer(await singleShardOnCitus(inject('databaseUrl')), { pushPrivateNetworks: true });
  const made = await newOrganization(server);
  owner = made.owner;
  organizationId = made.organization.id;
  tenant = await server.services.tenants.create({ organizationId, name: `stmts-${Date.now().toString(36)}`, showcase: true, eventsEnabled: true });
}, 120_000);

/**
 * On a Citus database (the suite run with DATABASE_URL naming a coordinator: docs/scale-out.md), the server's sessions
 * refuse any statement that would run on more than one shard, so the sweep's requests fail where one does. The
 * migrations run before, on sessions without that setting: those that move data read every tenant's rows.
 */
async function singleShardOnCitus(url: string): Promise<string> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query(`SELECT 1 FROM pg_extension WHERE extname = 'citus'`);
    if (!rows.length) return url;
  } finally {
    await client.end();
  }
  const dataSource = await createDataSource(url, 1).initialize();
  try {
    await runMigrations(dataSource);
  } finally {
    await dataSource.destroy();
  }
  const strict = new URL(url);
  strict.searchParams.set('options', '-c citus.multi_task_query_log_level=error');
  return strict.toString();
}

afterAll(async () => {
  recorder.stop();
  await server?.close();
});

const property = (idShort: string | undefined, value: string, valueType = 'xs:string') => ({ modelType: 'Property', ...(idShort ? { idShort } : {}), valueType, value });
const nested = (id: string) => ({
  modelType: 'Submodel',
  id,
  idShort: 'Deep',
  semanticId: { type: 'ExternalReference', keys: [{ type: 'GlobalReference', value: 'https://admin-shell.io/ZVEI/TechnicalData/Submodel/1/2' }] },
  submodelElements: [
    property('Top', 'one'),
    {
      modelType: 'SubmodelElementCollection',
      idShort: 'Outer',
      value: [
        { modelType: 'SubmodelElementCollection', idShort: 'Inner', value: [property('Leaf', 'deep'), { modelType: 'File', idShort: 'Manual', contentType: 'application/pdf' }] },
        { modelType: 'SubmodelElementList', idShort: 'List', typeValueListElement: 'Property', valueTypeListElement: 'xs:int', value: [property(undefined, '1', 'xs:int'), property(undefined, '2', 'xs:int')] },
      ],
    },
  ],
});

/**
 * One request of the sweep: its status must be the expected one, so that no part of the sweep is silently skipped. A
 * text body goes as it is (its content type in `headers`), anything else but a form as JSON.
 */
async function call(method: string, url: string, body?: unknown, expected: number | number[] = [200, 201, 204], headers: Record<string, string> = {}): Promise<Response> {
  const init: RequestInit = { method, headers: { ...headers } };
  if (body instanceof FormData || typeof body === 'string') init.body = body;
  else if (body !== undefined) {
    init.body = JSON.stringify(body);
    (init.headers as Record<string, string>)['content-type'] = 'application/json';
  }
  const res = await fetch(url, init);
  const wanted = Array.isArray(expected) ? expected : [expected];
  if (!wanted.includes(res.status)) {
    const text = await res.text();
    expect.fail(`${method} ${url}: ${res.status} ${text.slice(0, 500)}`);
  }
  return res;
}
const bytes = async (res: Response) => Buffer.from(await res.arrayBuffer());

describe('statements of tenant requests', () => {
  it('sweeps the tenant API; every statement on a tenant-owned table names tenant_id', async () => {
    const api = server.api(tenant.name);
    const sphere = `${server.url}/tenants/${tenant.name}/sphere/api/v1.0`;
    recorder.recording = true;

    // Shells.
    const shellId = 'urn:stmts:shell:1';
    const smId = 'urn:stmts:sm:1';
    const smRef = { type: 'ModelReference', keys: [{ type: 'Submodel', value: smId }] };
    await call('POST', `${api}/shells`, sampleShell(shellId, { assetInformation: { assetKind: 'Instance', globalAssetId: 'urn:stmts:asset:1', specificAssetIds: [{ name: 'serial', value: 'S-1' }] } }), 201);
    await call('GET', `${api}/shells`);
    await call('GET', `${api}/shells/${b64(shellId)}`);
    await call('PUT', `${api}/shells/${b64(shellId)}`, sampleShell(shellId, { idShort: 'Renamed', assetInformation: { assetKind: 'Instance', globalAssetId: 'urn:stmts:asset:1', specificAssetIds: [{ name: 'serial', value: 'S-1' }] } }), 204);
    await call('GET', `${api}/shells/${b64(shellId)}/asset-information`);

    // Submodels with elements at depth, and the shell's reference to one.
    await call('POST', `${api}/submodels`, nested(smId), 201);
    await call('POST', `${api}/shells/${b64(shellId)}/submodel-refs`, smRef, 201);
    await call('GET', `${api}/shells/${b64(shellId)}/submodel-refs`);
    await call('GET', `${api}/submodels`);
    await call('GET', `${api}/submodels/${b64(smId)}`);
    await call('GET', `${api}/submodels/${b64(smId)}/$value`);
    await call('GET', `${api}/submodels/${b64(smId)}/$metadata`);
    await call('GET', `${api}/shells/${b64(shellId)}/submodels/${b64(smId)}`);
    const element = (path: string | null, suffix = '') => `${api}/submodels/${b64(smId)}/submodel-elements${path === null ? '' : `/${encodeURIComponent(path)}`}${suffix}`;
    await call('GET', element(null));
    await call('GET', element('Outer.Inner.Leaf'));
    await call('GET', element('Outer.List[1]'));
    await call('POST', element(null), property('Added', 'new'), 201);
    await call('POST', element('Outer.Inner'), property('Child', 'in the inner collection'), 201);
    await call('POST', element('Outer.List'), property(undefined, '3', 'xs:int'), 201);
    await call('PUT', element('Outer.Inner.Leaf'), property('Leaf', 'replaced'), 204);
    await call('PATCH', element('Outer.Inner.Child'), property('Child', 'patched'), 204);
    await call('PATCH', element('Outer.List[0]', '/$value'), 10, 204);
    await call('PATCH', element('Outer.Inner', '/$metadata'), { category: 'PARAMETER' }, 204);
    await call('GET', element('Outer', '/$value'));
    const attachment = new FormData();
    attachment.append('file', new Blob(['%PDF-stmts'], { type: 'application/pdf' }), 'manual.pdf');
    await call('PUT', element('Outer.Inner.Manual', '/attachment'), attachment, 204);
    expect((await bytes(await call('GET', element('Outer.Inner.Manual', '/attachment')))).toString()).toBe('%PDF-stmts');
    await call('DELETE', element('Outer.List[1]'), undefined, 204);
    await call('DELETE', element('Added'), undefined, 204);
    await call('PATCH', `${api}/submodels/${b64(smId)}`, { ...nested(smId), idShort: 'Patched' }, 204);
    await call('PUT', `${api}/submodels/${b64(smId)}`, nested(smId), 204);

    // Concept descriptions.
    const cdId = 'urn:stmts:cd:1';
    await call('POST', `${api}/concept-descriptions`, { modelType: 'ConceptDescription', id: cdId, idShort: 'Cd' }, 201);
    await call('GET', `${api}/concept-descriptions`);
    await call('GET', `${api}/concept-descriptions/${b64(cdId)}`);
    await call('PUT', `${api}/concept-descriptions/${b64(cdId)}`, { modelType: 'ConceptDescription', id: cdId, idShort: 'Cd2' }, 204);

    // The file repository.
    const created = await sendFile(`${sphere}/files`, Buffer.from('first contents'), { name: 'a.txt', type: 'text/plain' });
    expect(created.status, await created.clone().text()).toBe(201);
    const { tfp } = await json(created);
    const file = `${sphere}/files/${enc(tfp)}`;
    await call('GET', `${sphere}/files`);
    expect((await bytes(await call('GET', file))).toString()).toBe('first contents');
    await call('GET', `${file}/metadata`);
    const replaced = await sendFile(file, Buffer.from('second contents'), { method: 'PUT', name: 'b.txt', type: 'text/plain' });
    expect(replaced.status, await replaced.clone().text()).toBeLessThan(300);
    expect((await bytes(await call('GET', file))).toString()).toBe('second contents');
    await call('DELETE', file, undefined, 204);

    // AASX: an upload (import), the serialization export (JSON and AASX), and the package repository.
    const pkgShell = 'urn:stmts:pkg:shell';
    const environment = {
      assetAdministrationShells: [sampleShell(pkgShell, { submodels: [{ type: 'ModelReference', keys: [{ type: 'Submodel', value: 'urn:stmts:pkg:sm' }] }] })],
      submodels: [{ modelType: 'Submodel', id: 'urn:stmts:pkg:sm', idShort: 'Docs', submodelElements: [{ modelType: 'File', idShort: 'Doc', contentType: 'application/pdf', value: '/aasx/files/doc.pdf' }] }],
      conceptDescriptions: [{ modelType: 'ConceptDescription', id: 'urn:stmts:pkg:cd' }],
    };
    const packageFile = await packages.write({ format: 'json', content: JSON.stringify(environment) }, [{ path: '/aasx/files/doc.pdf', text: '%PDF-doc' }]);
    const packageBytes = fs.readFileSync(packageFile);
    const upload = new FormData();
    upload.append('file', new Blob([packageBytes], { type: 'application/asset-administration-shell-package' }), 'p.aasx');
    await call('POST', `${api}/upload`, upload);
    await call('GET', `${api}/serialization?aasIds=${b64(pkgShell)}&submodelIds=${b64('urn:stmts:pkg:sm')}`, undefined, 200, { accept: 'application/json' });
    await call('GET', `${api}/serialization?aasIds=${b64(pkgShell)}&submodelIds=${b64('urn:stmts:pkg:sm')}`, undefined, 200, { accept: 'application/asset-administration-shell-package+xml' });
    const posted = new FormData();
    posted.append('file', new Blob([packageBytes]), 'p.aasx');
    posted.append('fileName', 'p.aasx');
    const { packageId } = await json(await call('POST', `${api}/packages`, posted, 201));
    await call('GET', `${api}/packages`);
    await call('GET', `${api}/packages/${b64(packageId)}`);
    const put = new FormData();
    put.append('file', new Blob([packageBytes]), 'q.aasx');
    await call('PUT', `${api}/packages/${b64(packageId)}`, put, 204);
    await call('DELETE', `${api}/packages/${b64(packageId)}`, undefined, 204);

    // Implicit registries and discovery.
    await call('GET', `${api}/shell-descriptors`);
    await call('GET', `${api}/shell-descriptors/${b64(shellId)}`);
    await call('GET', `${api}/submodel-descriptors`);
    await call('GET', `${api}/lookup/shells?assetIds=${b64(JSON.stringify({ name: 'serial', value: 'S-1' }))}`);
    await call('GET', `${api}/description`);

    // Explicit instances, created through the Management API: an AAS registry and a discovery.
    const instances = `/organizations/${organizationId}/tenants/${tenant.id}/registry-instances`;
    for (const input of [{ name: 'reg', kind: 'aas-registry' }, { name: 'disco', kind: 'discovery' }]) {
      const made = await owner.call('POST', instances, input);
      expect(made.status, JSON.stringify(made.body)).toBe(201);
    }
    expect((await owner.call('GET', instances)).status).toBe(200);
    const reg = `${server.url}/tenants/${tenant.name}/reg/api/v3.0`;
    const descId = 'urn:stmts:desc:1';
    const descriptor = (idShort: string) => ({
      id: descId,
      idShort,
      assetKind: 'Instance',
      globalAssetId: 'urn:stmts:desc:asset',
      specificAssetIds: [{ name: 'serial', value: 'D-1' }],
      endpoints: [{ interface: 'AAS-3.0', protocolInformation: { href: `https://elsewhere.example/shells/${b64(descId)}` } }],
    });
    await call('POST', `${reg}/shell-descriptors`, descriptor('Motor'), 201);
    await call('GET', `${reg}/shell-descriptors`);
    await call('GET', `${reg}/shell-descriptors/${b64(descId)}`);
    await call('PUT', `${reg}/shell-descriptors/${b64(descId)}`, descriptor('Motor2'), 204);
    const smDescId = 'urn:stmts:desc:sm';
    await call(
      'POST',
      `${reg}/shell-descriptors/${b64(descId)}/submodel-descriptors`,
      { id: smDescId, idShort: 'Sm', endpoints: [{ interface: 'SUBMODEL-3.0', protocolInformation: { href: `https://elsewhere.example/submodels/${b64(smDescId)}` } }] },
      201,
    );
    await call('GET', `${reg}/shell-descriptors/${b64(descId)}/submodel-descriptors`);
    await call('GET', `${reg}/shell-descriptors/${b64(descId)}/submodel-descriptors/${b64(smDescId)}`);
    await call('DELETE', `${reg}/shell-descriptors/${b64(descId)}/submodel-descriptors/${b64(smDescId)}`, undefined, 204);
    await call('DELETE', `${reg}/shell-descriptors/${b64(descId)}`, undefined, 204);
    const disco = `${server.url}/tenants/${tenant.name}/disco/api/v3.0`;
    const links = [{ name: 'serial', value: 'L-1' }, { name: 'globalAssetId', value: 'urn:stmts:linked' }];
    await call('POST', `${disco}/lookup/shells/${b64('urn:stmts:linked:1')}`, links, 201);
    await call('GET', `${disco}/lookup/shells/${b64('urn:stmts:linked:1')}`);
    await call('GET', `${disco}/lookup/shells?assetIds=${b64(JSON.stringify({ name: 'serial', value: 'L-1' }))}`);
    await call('POST', `${disco}/lookup/shellsByAssetLink`, [{ name: 'globalAssetId', value: 'urn:stmts:linked' }]);
    await call('DELETE', `${disco}/lookup/shells/${b64('urn:stmts:linked:1')}`, undefined, 204);

    // Search and the query language.
    await call('POST', `${api}/search`, { index: 'technical-properties', semanticId: '0173-1#02-AAO677#002', op: '=', value: 'ACME' });
    const eq = (fieldName: string, value: string) => ({ $condition: { $eq: [{ $field: fieldName }, { $strVal: value }] } });
    await call('POST', `${api}/query/shells`, eq('$aas#idShort', 'Renamed'));
    await call('POST', `${api}/query/submodels`, eq('$sm#idShort', 'Deep'));
    await call('POST', `${api}/query/concept-descriptions`, eq('$cd#idShort', 'Cd2'));

    // Push targets.
    const target = await json(await call('POST', `${sphere}/push-targets`, { kind: 'aasx-server', url: 'http://127.0.0.1:9/tenants/x/api/v3.0', token: 'secret-token' }, 201));
    await call('GET', `${sphere}/push-targets`);
    await call('GET', `${sphere}/push-targets/${target.id}`);
    await call('DELETE', `${sphere}/push-targets/${target.id}`, undefined, 204);

    // The semantic connector: a dictionary (upload, list, read, search, delete), equivalence sets, resolve (exact,
    // equivalent, a Reference), usages, and equivalence where the AAS API matches semantic ids.
    const semantics = `${sphere}/semantics`;
    const dictionaryUpload = new FormData();
    dictionaryUpload.append('file', new Blob([DICTIONARY_CSV], { type: 'text/csv' }), 'eClass14_0_PR_en.csv');
    const dictionary = await json(await call('POST', `${semantics}/dictionaries?name=ECLASS%20PR`, dictionaryUpload, 201));
    await call('GET', `${semantics}/dictionaries`);
    await call('GET', `${semantics}/dictionaries/${dictionary.id}`);
    await call('GET', `${semantics}/entries?text=rated`);
    await call('GET', `${semantics}/entries?text=voltage&dictionaryId=${dictionary.id}`);
    const set = await json(await call('POST', `${semantics}/equivalence-sets`, { members: ['urn:stmts:a', '0173-1#02-AAO677#002'] }, 201));
    await call('GET', `${semantics}/equivalence-sets`);
    await call('GET', `${semantics}/equivalence-sets/${set.id}`);
    const [resolved] = (await json(await call('GET', `${semantics}/resolve?semanticId=${b64('0173-1#02-AAO677#002')}`))).result;
    expect(resolved.entries.length, 'the exact resolve finds the dictionary entry').toBe(1);
    const [equivalent] = (await json(await call('GET', `${semantics}/resolve?semanticId=${b64('urn:stmts:a')}&matching=equivalent`))).result;
    expect(equivalent.equivalentKeys, 'the equivalent resolve walks the set').toContain('irdi:0173-1#02-AAO677');
    expect(equivalent.entries.length, 'the equivalent resolve finds the entry through the set').toBe(1);
    await call('GET', `${semantics}/resolve?semanticId=${b64(JSON.stringify({ type: 'ExternalReference', keys: [{ type: 'GlobalReference', value: '0173-1#02-AAB325#008' }] }))}&matching=equivalent`);
    await call('GET', `${semantics}/usages?semanticId=${b64('https://admin-shell.io/ZVEI/TechnicalData/Submodel/1/2')}`);
    await call('GET', `${semantics}/usages?semanticId=${b64('urn:stmts:a')}&matching=equivalent`);
    await call('GET', `${semantics}/usages/shells?semanticId=${b64('https://admin-shell.io/ZVEI/TechnicalData/Submodel/1/2')}`);
    await call('GET', `${semantics}/usages/shells?semanticId=${b64('urn:stmts:a')}&matching=equivalent`);
    await call('GET', `${api}/submodels?semanticId=${b64('urn:stmts:a')}&semanticIdMatching=equivalent`);
    await call('POST', `${api}/query/submodels?semanticIdMatching=equivalent`, eq('$sme#semanticId', 'urn:stmts:a'));
    await call('DELETE', `${semantics}/equivalence-sets/${set.id}`, undefined, 204);
    await call('DELETE', `${semantics}/dictionaries/${dictionary.id}`, undefined, 204);

    // The DCC conversion: preview and store with the shell named (its asset ids added), over REST and GraphQL, and
    // the reads of what was stored (the submodel, the original in the file repository, the shell's references).
    const conversions = `${sphere}/dcc/conversions`;
    const dcc = { 'content-type': 'application/xml' };
    const dccShell = `shellId=${b64(shellId)}&addAssetIds=true`;
    await call('POST', `${conversions}?mode=preview&${dccShell}`, DCC, 200, dcc);
    const stored = await json(await call('POST', `${conversions}?mode=store&${dccShell}&submodelId=urn:stmts:dcc:1`, DCC, 201, dcc));
    expect(stored.referencedFrom).toBe(shellId);
    const dccUpload = new FormData();
    dccUpload.append('file', new Blob([DCC], { type: 'application/xml' }), 'certificate.xml');
    await call('POST', `${conversions}?mode=store&submodelId=urn:stmts:dcc:2`, dccUpload, 201);
    const gql = async (query: string, variables: Record<string, unknown>) => {
      const answer = await json(await call('POST', `${server.url}/graphql`, { query, variables }, 200));
      expect(answer.errors, JSON.stringify(answer.errors)).toBeUndefined();
    };
    await gql('query($t: String!, $d: XmlDocument!, $s: String) { dccConversionPreview(tenant: $t, dcc: $d, shellId: $s) { submodelId } }', { t: tenant.name, d: DCC, s: shellId });
    await gql('mutation($t: String!, $d: XmlDocument!, $s: String) { convertDcc(tenant: $t, dcc: $d, shellId: $s, submodelId: "urn:stmts:dcc:3") { submodelId } }', { t: tenant.name, d: DCC, s: shellId });
    await call('GET', `${api}/submodels/${b64('urn:stmts:dcc:1')}`);
    await call('GET', `${api}/submodels/${b64('urn:stmts:dcc:1')}/$value`);
    await call('GET', `${api}/submodels/${b64('urn:stmts:dcc:1')}/submodel-elements/originalDcc/attachment`);
    await call('GET', `${sphere}/files/${enc(stored.files[0].tfp)}`);
    await call('GET', `${api}/shells/${b64(shellId)}/submodel-refs`);
    for (const id of ['urn:stmts:dcc:1', 'urn:stmts:dcc:3']) await call('DELETE', `${api}/shells/${b64(shellId)}/submodel-refs/${b64(id)}`, undefined, 204);
    for (const id of ['urn:stmts:dcc:1', 'urn:stmts:dcc:2', 'urn:stmts:dcc:3']) await call('DELETE', `${api}/submodels/${b64(id)}`, undefined, 204);

    // Deletes last.
    await call('DELETE', `${api}/shells/${b64(shellId)}/submodel-refs/${b64(smId)}`, undefined, 204);
    await call('DELETE', `${api}/submodels/${b64(smId)}`, undefined, 204);
    await call('DELETE', `${api}/concept-descriptions/${b64(cdId)}`, undefined, 204);
    await call('DELETE', `${api}/shells/${b64(shellId)}`, undefined, 204);
    recorder.recording = false;

    // The recording saw the sweep: statements on tenant-owned tables from its requests.
    const onTenantTables = recorder.statements.filter((r) => code(r.text).match(TABLE));
    expect(onTenantTables.length).toBeGreaterThan(50);
    // Reads straight on the pool (src/db/read.ts: a shell's document by id) are recorded as TypeORM's statements are.
    const hotRead = `GET /tenants/${tenant.name}/api/v3.0/shells/${b64(shellId)}/asset-information`;
    expect(onTenantTables.some((r) => r.request === hotRead && /\bFROM shells\b/.test(r.text)), hotRead).toBe(true);
    // Each offending statement once, with the tables it names and the requests that sent it.
    const offenders = new Map<string, Set<string>>();
    for (const r of onTenantTables.filter((r) => !TENANT_ID.test(code(r.text)))) {
      const tables = [...new Set(code(r.text).match(TABLE)!.map((m) => m.replace(/"/g, '')))].join(', ');
      const key = `${tables}: ${r.text.replace(/\s+/g, ' ').trim()}`;
      offenders.set(key, (offenders.get(key) ?? new Set()).add(r.request.replace(/^(\S+ \S+?)\?.*$/, '$1')));
    }
    const report = [...offenders].map(([statement, requests]) => `${statement}  <- ${[...requests].join(' | ')}`);
    expect(report, 'statements of tenant requests on tenant-owned tables without tenant_id').toEqual([]);
  }, 300_000);
});
