import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { TestServer, json, sampleShell, startTestServer } from '../support/server';

/*
 * GraphQL over HTTP (POST /graphql) for submodels, their elements and concept descriptions: the typed element
 * fields of every kind, one element at its idShortPath with its value, metadata, paths, reference and entity
 * tag, the mutations with and without If-Match, and the related fields (Shell.submodels, Shell.submodelRefs,
 * Submodel.semanticConceptDescription).
 */

let server: TestServer;
/** The tenant of the describe block running now: each block starts on its own (suites run one after another). */
let tenant: string;

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Gql = { data?: any; errors?: { message: string; extensions: { code: string; messages?: string[] } }[] };

const gql = (query: string, variables: Record<string, unknown> = {}): Promise<Gql> =>
  json(fetch(`${server.url}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query, variables }) }));

/** The data of a request that must succeed. */
async function data(query: string, variables: Record<string, unknown> = {}) {
  const res = await gql(query, { t: tenant, ...variables });
  expect(res.errors, JSON.stringify(res.errors)).toBeUndefined();
  return res.data;
}

/** The error code of a request that must fail. */
async function errorCode(query: string, variables: Record<string, unknown> = {}) {
  const res = await gql(query, { t: tenant, ...variables });
  expect(res.errors, `expected an error, got ${JSON.stringify(res.data)}`).toBeDefined();
  return res.errors![0].extensions.code;
}

const globalRef = (value: string) => ({ type: 'ExternalReference', keys: [{ type: 'GlobalReference', value }] });
const modelRef = (...keys: [string, string][]) => ({ type: 'ModelReference', keys: keys.map(([type, value]) => ({ type, value })) });

const SM_ID = 'urn:gql:sm:technical-data';
const CD_ID = 'urn:gql:cd:technical-data';
const LOGO = Buffer.from('logo bytes').toString('base64');

/** One element of most kinds, nested a collection and a list deep. */
const technicalData = {
  modelType: 'Submodel',
  id: SM_ID,
  idShort: 'TechnicalData',
  kind: 'Instance',
  semanticId: globalRef(CD_ID),
  submodelElements: [
    { modelType: 'Property', idShort: 'MaxRpm', valueType: 'xs:int', value: '3000', semanticId: globalRef('urn:gql:cd:max-rpm') },
    { modelType: 'MultiLanguageProperty', idShort: 'Name', value: [{ language: 'en', text: 'Pump' }, { language: 'de', text: 'Pumpe' }] },
    { modelType: 'Range', idShort: 'Temperature', valueType: 'xs:double', min: '-20', max: '80' },
    {
      modelType: 'SubmodelElementCollection',
      idShort: 'Motor',
      value: [
        { modelType: 'Property', idShort: 'Power', valueType: 'xs:double', value: '5.5' },
        {
          modelType: 'SubmodelElementList',
          idShort: 'Phases',
          typeValueListElement: 'Property',
          valueTypeListElement: 'xs:double',
          value: [
            { modelType: 'Property', valueType: 'xs:double', value: '230' },
            { modelType: 'Property', valueType: 'xs:double', value: '231' },
          ],
        },
      ],
    },
    { modelType: 'File', idShort: 'Manual', contentType: 'application/pdf', value: 'manual.pdf' },
    { modelType: 'Blob', idShort: 'Logo', contentType: 'image/png', value: LOGO },
    { modelType: 'ReferenceElement', idShort: 'Maker', value: globalRef('urn:maker:acme') },
    { modelType: 'Entity', idShort: 'Asset', entityType: 'SelfManagedEntity', globalAssetId: 'urn:asset:1', statements: [{ modelType: 'Property', idShort: 'Serial', valueType: 'xs:string', value: 'S-1' }] },
    { modelType: 'RelationshipElement', idShort: 'Drives', first: modelRef(['Submodel', SM_ID], ['SubmodelElementCollection', 'Motor']), second: globalRef('urn:pump') },
    { modelType: 'BasicEventElement', idShort: 'Overheat', observed: modelRef(['Submodel', SM_ID], ['Range', 'Temperature']), direction: 'output', state: 'on' },
    { modelType: 'Operation', idShort: 'Start', inputVariables: [{ value: { modelType: 'Property', idShort: 'Speed', valueType: 'xs:int' } }] },
    { modelType: 'Capability', idShort: 'CanPump' },
  ],
};

/** Every kind's own fields; `value` differs in type between kinds, so all but one are aliased (GraphQL's rule). */
const ELEMENT_FIELDS = `
  __typename idShort modelType semanticId { keys { value } }
  ... on Property { value valueType }
  ... on MultiLanguageProperty { texts: value { language text } }
  ... on Range { min max rangeType: valueType }
  ... on File { contentType file: value }
  ... on Blob { blobType: contentType blob: value }
  ... on ReferenceElement { ref: value { type keys { type value } } }
  ... on SubmodelElementCollection { children: value { __typename idShort ... on Property { value } ... on SubmodelElementList { items: value { ... on Property { value } } } } }
  ... on SubmodelElementList { typeValueListElement valueTypeListElement items: value { __typename idShort ... on Property { value } } }
  ... on Entity { entityType globalAssetId statements { idShort ... on Property { value } } }
  ... on RelationshipElement { first { keys { value } } second { keys { value } } }
  ... on BasicEventElement { observed { keys { value } } direction state }
  ... on Operation { inputVariables { value { __typename idShort } } }
`;

const SUBMODEL = `query($t: String!, $id: String!, $extent: Extent) {
  submodel(tenant: $t, id: $id, extent: $extent) {
    id idShort kind etag semanticId { type keys { type value } } reference { type keys { type value } }
    submodelElements { ${ELEMENT_FIELDS} }
  }
}`;

const ELEMENT = `query($t: String!, $sm: String!, $path: String!) {
  submodelElement(tenant: $t, submodelId: $sm, idShortPath: $path) {
    idShortPath element { __typename idShort } value(strict: false) hasValue metadata paths reference { type keys { type value } } etag
  }
}`;

const CREATE_SUBMODEL = 'mutation($t: String!, $s: JSONObject!) { createSubmodel(tenant: $t, submodel: $s) { id idShort etag } }';
const CREATE_CD = 'mutation($t: String!, $cd: JSONObject!) { createConceptDescription(tenant: $t, conceptDescription: $cd) { id idShort etag } }';
const PATCH_VALUE = `mutation($t: String!, $sm: String!, $path: String!, $value: JSON!, $ifMatch: String) {
  patchSubmodelElementValue(tenant: $t, submodelId: $sm, idShortPath: $path, value: $value, ifMatch: $ifMatch) {
    idShortPath value etag element { __typename ... on Property { value } }
  }
}`;
const DELETE_ELEMENT = `mutation($t: String!, $sm: String!, $path: String!, $ifMatch: String) {
  deleteSubmodelElement(tenant: $t, submodelId: $sm, idShortPath: $path, ifMatch: $ifMatch)
}`;

beforeAll(async () => {
  server = await startTestServer(inject('databaseUrl'));
});
afterAll(() => server?.close());

describe('GraphQL submodels: mutations and typed reads', () => {
  let createdEtag: string;

  beforeAll(async () => {
    tenant = (await server.createTenant()).name;
    const created = await data(CREATE_SUBMODEL, { s: technicalData });
    expect(created.createSubmodel).toEqual({ id: SM_ID, idShort: 'TechnicalData', etag: expect.stringMatching(/^".+"$/) });
    createdEtag = created.createSubmodel.etag;
  });

  it('refuses a second createSubmodel of the same id (CONFLICT) and an invalid one (BAD_REQUEST)', async () => {
    expect(await errorCode(CREATE_SUBMODEL, { s: technicalData })).toBe('CONFLICT');
    expect(await errorCode(CREATE_SUBMODEL, { s: { modelType: 'Submodel' } })).toBe('BAD_REQUEST');
    expect(await errorCode(CREATE_SUBMODEL, { s: { modelType: 'Submodel', id: 'urn:gql:bad', submodelElements: [{ modelType: 'Property', idShort: 'x y', valueType: 'xs:int' }] } })).toBe('BAD_REQUEST');
  });

  it('reads the submodel with typed fields for every element kind', async () => {
    const { submodel } = await data(SUBMODEL, { id: SM_ID });
    expect(submodel).toMatchObject({
      id: SM_ID,
      idShort: 'TechnicalData',
      kind: 'Instance',
      etag: createdEtag,
      semanticId: { type: 'ExternalReference', keys: [{ type: 'GlobalReference', value: CD_ID }] },
      reference: { type: 'ModelReference', keys: [{ type: 'Submodel', value: SM_ID }] },
    });
    const byIdShort = Object.fromEntries((submodel.submodelElements as { idShort: string }[]).map((e) => [e.idShort, e]));
    expect(Object.keys(byIdShort)).toEqual(technicalData.submodelElements.map((e) => e.idShort));
    expect(byIdShort.MaxRpm).toEqual({ __typename: 'Property', idShort: 'MaxRpm', modelType: 'Property', semanticId: { keys: [{ value: 'urn:gql:cd:max-rpm' }] }, value: '3000', valueType: 'xs:int' });
    expect(byIdShort.Name).toMatchObject({ __typename: 'MultiLanguageProperty', texts: [{ language: 'en', text: 'Pump' }, { language: 'de', text: 'Pumpe' }] });
    expect(byIdShort.Temperature).toMatchObject({ __typename: 'Range', min: '-20', max: '80', rangeType: 'xs:double' });
    expect(byIdShort.Motor).toMatchObject({
      __typename: 'SubmodelElementCollection',
      children: [
        { __typename: 'Property', idShort: 'Power', value: '5.5' },
        { __typename: 'SubmodelElementList', idShort: 'Phases', items: [{ value: '230' }, { value: '231' }] },
      ],
    });
    expect(byIdShort.Manual).toMatchObject({ __typename: 'File', contentType: 'application/pdf', file: 'manual.pdf' });
    // Blob values are left out unless asked for (extent), as in REST.
    expect(byIdShort.Logo).toMatchObject({ __typename: 'Blob', blobType: 'image/png', blob: null });
    expect(byIdShort.Maker).toMatchObject({ __typename: 'ReferenceElement', ref: { type: 'ExternalReference', keys: [{ type: 'GlobalReference', value: 'urn:maker:acme' }] } });
    expect(byIdShort.Asset).toMatchObject({ __typename: 'Entity', entityType: 'SelfManagedEntity', globalAssetId: 'urn:asset:1', statements: [{ idShort: 'Serial', value: 'S-1' }] });
    expect(byIdShort.Drives).toMatchObject({ __typename: 'RelationshipElement', first: { keys: [{ value: SM_ID }, { value: 'Motor' }] }, second: { keys: [{ value: 'urn:pump' }] } });
    expect(byIdShort.Overheat).toMatchObject({ __typename: 'BasicEventElement', observed: { keys: [{ value: SM_ID }, { value: 'Temperature' }] }, direction: 'output', state: 'on' });
    expect(byIdShort.Start).toMatchObject({ __typename: 'Operation', inputVariables: [{ value: { __typename: 'Property', idShort: 'Speed' } }] });
    expect(byIdShort.CanPump).toEqual({ __typename: 'Capability', idShort: 'CanPump', modelType: 'Capability', semanticId: null });

    const withBlob = await data(SUBMODEL, { id: SM_ID, extent: 'WithBLOBValue' });
    expect(withBlob.submodel.submodelElements.find((e: { idShort: string }) => e.idShort === 'Logo').blob).toBe(LOGO);
  });

  it('lists the typed fields of a list by index and rejects unaliased conflicting `value` selections', async () => {
    const { submodel } = await data(SUBMODEL, { id: SM_ID });
    const motor = submodel.submodelElements.find((e: { idShort: string }) => e.idShort === 'Motor');
    expect(motor.children[1].items).toHaveLength(2);
    // Without aliases, `value` as String (Property) and as [LangString] (MultiLanguageProperty) cannot share a
    // selection set: GraphQL refuses the document before running it.
    const res = await gql(`query($t: String!) { submodel(tenant: $t, id: "${SM_ID}") { submodelElements {
      ... on Property { value } ... on MultiLanguageProperty { value { text } } } } }`, { t: tenant });
    expect(res.data).toBeUndefined();
    expect(res.errors?.[0].message).toMatch(/conflict/i);
  });

  it('reads one element at its idShortPath: value, metadata, paths, reference and the submodel\'s etag', async () => {
    const phase = (await data(ELEMENT, { sm: SM_ID, path: 'Motor.Phases[1]' })).submodelElement;
    expect(phase).toEqual({
      idShortPath: 'Motor.Phases[1]',
      element: { __typename: 'Property', idShort: null },
      value: 231,
      hasValue: true,
      metadata: { modelType: 'Property', valueType: 'xs:double' },
      paths: ['Motor.Phases[1]'],
      reference: {
        type: 'ModelReference',
        keys: [
          { type: 'Submodel', value: SM_ID },
          { type: 'SubmodelElementCollection', value: 'Motor' },
          { type: 'SubmodelElementList', value: 'Phases' },
          { type: 'Property', value: '1' },
        ],
      },
      etag: createdEtag,
    });

    const motor = (await data(ELEMENT, { sm: SM_ID, path: 'Motor' })).submodelElement;
    expect(motor.element).toEqual({ __typename: 'SubmodelElementCollection', idShort: 'Motor' });
    expect(motor.value).toEqual({ Power: 5.5, Phases: [230, 231] });
    expect(motor.metadata).toEqual({ modelType: 'SubmodelElementCollection', idShort: 'Motor' });
    expect(motor.paths).toEqual(['Motor', 'Motor.Power', 'Motor.Phases', 'Motor.Phases[0]', 'Motor.Phases[1]']);

    const name = (await data(ELEMENT, { sm: SM_ID, path: 'Name' })).submodelElement;
    expect(name.value).toEqual([{ en: 'Pump' }, { de: 'Pumpe' }]);
    const entity = (await data(ELEMENT, { sm: SM_ID, path: 'Asset.Serial' })).submodelElement;
    expect(entity.value).toBe('S-1');
    expect(entity.reference.keys.map((k: { type: string }) => k.type)).toEqual(['Submodel', 'Entity', 'Property']);

    // Operations have no value form: null with strict: false, an error with the default strict: true.
    const start = (await data(ELEMENT, { sm: SM_ID, path: 'Start' })).submodelElement;
    expect(start).toMatchObject({ value: null, hasValue: false, element: { __typename: 'Operation' } });
    expect(await errorCode(`query($t: String!) { submodelElement(tenant: $t, submodelId: "${SM_ID}", idShortPath: "Start") { value } }`)).toBe('BAD_REQUEST');
  });

  it('answers NOT_FOUND for paths that lead nowhere and BAD_REQUEST for malformed ones', async () => {
    expect(await errorCode(ELEMENT, { sm: SM_ID, path: 'Motor.Phases[2]' })).toBe('NOT_FOUND');
    expect(await errorCode(ELEMENT, { sm: SM_ID, path: 'Nothing' })).toBe('NOT_FOUND');
    expect(await errorCode(ELEMENT, { sm: SM_ID, path: 'MaxRpm.Deeper' })).toBe('NOT_FOUND');
    expect(await errorCode(ELEMENT, { sm: 'urn:gql:sm:absent', path: 'MaxRpm' })).toBe('NOT_FOUND');
    expect(await errorCode(ELEMENT, { sm: SM_ID, path: 'Motor.Phases[x]' })).toBe('BAD_REQUEST');
    expect(await errorCode(ELEMENT, { sm: SM_ID, path: '' })).toBe('BAD_REQUEST');
  });

  it('patches an element value: a new etag, and If-Match guards it (PRECONDITION_FAILED for a stale tag)', async () => {
    const before = (await data(ELEMENT, { sm: SM_ID, path: 'MaxRpm' })).submodelElement.etag;
    const patched = (await data(PATCH_VALUE, { sm: SM_ID, path: 'MaxRpm', value: 3600, ifMatch: before })).patchSubmodelElementValue;
    expect(patched).toMatchObject({ idShortPath: 'MaxRpm', value: 3600, element: { __typename: 'Property', value: '3600' } });
    expect(patched.etag).toEqual(expect.any(String));
    expect(patched.etag).not.toBe(before);
    expect((await data(SUBMODEL, { id: SM_ID })).submodel.etag).toBe(patched.etag);

    // The tag from before the change is stale now: refused, and nothing changes.
    const stale = await gql(PATCH_VALUE, { t: tenant, sm: SM_ID, path: 'MaxRpm', value: 1, ifMatch: before });
    expect(stale.errors?.[0].extensions.code).toBe('PRECONDITION_FAILED');
    expect(stale.data).toBeNull();
    expect((await data(ELEMENT, { sm: SM_ID, path: 'MaxRpm' })).submodelElement).toMatchObject({ value: 3600, etag: patched.etag });

    // `*` admits any existing submodel; a nested list item by index; a value of the wrong shape is BAD_REQUEST.
    const star = (await data(PATCH_VALUE, { sm: SM_ID, path: 'Motor.Phases[0]', value: 229, ifMatch: '*' })).patchSubmodelElementValue;
    expect(star).toMatchObject({ idShortPath: 'Motor.Phases[0]', value: 229, element: { value: '229' } });
    const collection = (await data(PATCH_VALUE, { sm: SM_ID, path: 'Motor', value: { Power: 7.5 } })).patchSubmodelElementValue;
    expect(collection.value).toEqual({ Power: 7.5, Phases: [229, 231] });
    expect(await errorCode(PATCH_VALUE, { sm: SM_ID, path: 'MaxRpm', value: { not: 'a number' } })).toBe('BAD_REQUEST');
    expect(await errorCode(PATCH_VALUE, { sm: SM_ID, path: 'Nothing', value: 1 })).toBe('NOT_FOUND');
    expect(await errorCode(PATCH_VALUE, { sm: 'urn:gql:sm:absent', path: 'MaxRpm', value: 1, ifMatch: '*' })).toBe('NOT_FOUND');
  });

  it('deletes an element, guarded by If-Match too', async () => {
    const { etag } = (await data(ELEMENT, { sm: SM_ID, path: 'Manual' })).submodelElement;
    expect(await errorCode(DELETE_ELEMENT, { sm: SM_ID, path: 'Manual', ifMatch: '"0-0"' })).toBe('PRECONDITION_FAILED');
    expect((await data(ELEMENT, { sm: SM_ID, path: 'Manual' })).submodelElement.etag).toBe(etag);

    expect((await data(DELETE_ELEMENT, { sm: SM_ID, path: 'Manual', ifMatch: etag })).deleteSubmodelElement).toBe(true);
    expect(await errorCode(ELEMENT, { sm: SM_ID, path: 'Manual' })).toBe('NOT_FOUND');
    expect(await errorCode(DELETE_ELEMENT, { sm: SM_ID, path: 'Manual' })).toBe('NOT_FOUND');

    expect((await data(DELETE_ELEMENT, { sm: SM_ID, path: 'Motor.Phases[0]' })).deleteSubmodelElement).toBe(true);
    expect((await data(ELEMENT, { sm: SM_ID, path: 'Motor.Phases' })).submodelElement.value).toEqual([231]);
    const { submodel } = await data(SUBMODEL, { id: SM_ID });
    expect(submodel.submodelElements.map((e: { idShort: string }) => e.idShort)).not.toContain('Manual');
  });

  it('guards whole-submodel mutations with If-Match as well', async () => {
    const id = 'urn:gql:sm:guarded';
    const { etag } = (await data(CREATE_SUBMODEL, { s: { modelType: 'Submodel', id, idShort: 'Guarded' } })).createSubmodel;
    const replace = 'mutation($t: String!, $id: String!, $s: JSONObject!, $ifMatch: String) { replaceSubmodel(tenant: $t, id: $id, submodel: $s, ifMatch: $ifMatch) { idShort etag } }';
    const replaced = (await data(replace, { id, s: { modelType: 'Submodel', id, idShort: 'Replaced' }, ifMatch: etag })).replaceSubmodel;
    expect(replaced.idShort).toBe('Replaced');
    expect(await errorCode(replace, { id, s: { modelType: 'Submodel', id, idShort: 'Again' }, ifMatch: etag })).toBe('PRECONDITION_FAILED');
    const del = 'mutation($t: String!, $id: String!, $ifMatch: String) { deleteSubmodel(tenant: $t, id: $id, ifMatch: $ifMatch) }';
    expect(await errorCode(del, { id, ifMatch: etag })).toBe('PRECONDITION_FAILED');
    expect((await data(SUBMODEL, { id })).submodel.idShort).toBe('Replaced');
    expect((await data(del, { id, ifMatch: replaced.etag })).deleteSubmodel).toBe(true);
    expect(await errorCode(SUBMODEL, { id })).toBe('NOT_FOUND');
  });
});

describe('GraphQL submodels: related fields', () => {
  const SHELL_ID = 'urn:gql:shell:pump';
  const OTHER_SM = 'urn:gql:sm:nameplate';
  const DANGLING = 'urn:gql:sm:not-stored';
  const submodelRef = (id: string) => ({ type: 'ModelReference', keys: [{ type: 'Submodel', value: id }] });

  beforeAll(async () => {
    tenant = (await server.createTenant()).name;
    await data(CREATE_SUBMODEL, { s: technicalData });
    await data(CREATE_SUBMODEL, { s: { modelType: 'Submodel', id: OTHER_SM, idShort: 'Nameplate', semanticId: globalRef('urn:gql:cd:none') } });
    const shell = sampleShell(SHELL_ID, { submodels: [submodelRef(OTHER_SM), submodelRef(DANGLING), submodelRef(SM_ID)] });
    await data('mutation($t: String!, $s: JSONObject!) { createShell(tenant: $t, shell: $s) { id } }', { s: shell });
  });

  it('creates a concept description by mutation and resolves it as the submodel\'s semanticConceptDescription', async () => {
    const query = `query($t: String!, $id: String!) { submodel(tenant: $t, id: $id) { id semanticConceptDescription { id idShort etag } } }`;
    // Before the concept description exists, the field is null.
    expect((await data(query, { id: SM_ID })).submodel.semanticConceptDescription).toBeNull();

    const cd = { modelType: 'ConceptDescription', id: CD_ID, idShort: 'TechnicalDataConcept', isCaseOf: [globalRef('urn:eclass:technical-data')] };
    const created = (await data(CREATE_CD, { cd })).createConceptDescription;
    expect(created).toEqual({ id: CD_ID, idShort: 'TechnicalDataConcept', etag: expect.any(String) });
    expect(await errorCode(CREATE_CD, { cd })).toBe('CONFLICT');
    expect(await errorCode(CREATE_CD, { cd: { modelType: 'ConceptDescription' } })).toBe('BAD_REQUEST');

    expect((await data(query, { id: SM_ID })).submodel.semanticConceptDescription).toEqual(created);
    // A semantic id naming no stored concept description resolves to null.
    expect((await data(query, { id: OTHER_SM })).submodel.semanticConceptDescription).toBeNull();
    const read = await data(`query($t: String!) { conceptDescription(tenant: $t, id: "${CD_ID}") { id idShort isCaseOf { keys { value } } json } }`);
    expect(read.conceptDescription).toEqual({ id: CD_ID, idShort: 'TechnicalDataConcept', isCaseOf: [{ keys: [{ value: 'urn:eclass:technical-data' }] }], json: cd });
  });

  it('gives a shell its submodelRefs as stored and its stored submodels in reference order', async () => {
    const { shell } = await data(`query($t: String!) { shell(tenant: $t, id: "${SHELL_ID}") {
      submodelRefs { type keys { type value } }
      submodels { id idShort etag submodelElements { idShort } semanticConceptDescription { id } }
    } }`);
    expect(shell.submodelRefs).toEqual([submodelRef(OTHER_SM), submodelRef(DANGLING), submodelRef(SM_ID)]);
    // The dangling reference has no submodel here and is skipped; the others keep the references' order.
    expect(shell.submodels.map((s: { id: string }) => s.id)).toEqual([OTHER_SM, SM_ID]);
    expect(shell.submodels[0]).toMatchObject({ idShort: 'Nameplate', submodelElements: null, semanticConceptDescription: null });
    expect(shell.submodels[1].idShort).toBe('TechnicalData');
    expect(shell.submodels[1].submodelElements.map((e: { idShort: string }) => e.idShort)).toEqual(technicalData.submodelElements.map((e) => e.idShort));
    expect(shell.submodels[1].semanticConceptDescription).toEqual({ id: CD_ID });
    // The etags are the submodels' own, as the submodel query reports them.
    expect(shell.submodels[1].etag).toBe((await data(SUBMODEL, { id: SM_ID })).submodel.etag);
  });

  it('a shell without references has no submodelRefs and an empty submodels list', async () => {
    const id = 'urn:gql:shell:bare';
    await data('mutation($t: String!, $s: JSONObject!) { createShell(tenant: $t, shell: $s) { id } }', { s: sampleShell(id) });
    const { shell } = await data(`query($t: String!) { shell(tenant: $t, id: "${id}") { submodelRefs { keys { value } } submodels { id } } }`);
    expect(shell).toEqual({ submodelRefs: null, submodels: [] });
  });

  it('resolves related rows only within the tenant: another tenant\'s submodels and concept descriptions stay unseen', async () => {
    const home = tenant;
    const other = (await server.createTenant()).name;
    try {
      tenant = other;
      // Same ids as in the home tenant, which stores the submodel and concept description they name.
      await data('mutation($t: String!, $s: JSONObject!) { createShell(tenant: $t, shell: $s) { id } }', { s: sampleShell(SHELL_ID, { submodels: [submodelRef(SM_ID)] }) });
      await data(CREATE_SUBMODEL, { s: { modelType: 'Submodel', id: 'urn:gql:sm:elsewhere', semanticId: globalRef(CD_ID) } });
      const { shell } = await data(`query($t: String!) { shell(tenant: $t, id: "${SHELL_ID}") { submodelRefs { keys { value } } submodels { id } } }`);
      expect(shell).toEqual({ submodelRefs: [{ keys: [{ value: SM_ID }] }], submodels: [] });
      const { submodel } = await data('query($t: String!) { submodel(tenant: $t, id: "urn:gql:sm:elsewhere") { semanticConceptDescription { id } } }');
      expect(submodel.semanticConceptDescription).toBeNull();
      expect(await errorCode(SUBMODEL, { id: SM_ID })).toBe('NOT_FOUND');
    } finally {
      tenant = home;
    }
    // And the home tenant still resolves its own.
    expect((await data(`query($t: String!) { shell(tenant: $t, id: "${SHELL_ID}") { submodels { id } } }`)).shell.submodels).toEqual([{ id: OTHER_SM }, { id: SM_ID }]);
  });

  it('shows a mutation document its own earlier writes in related fields (the per-request loaders must not serve stale rows)', async () => {
    // Mutation fields run one after another (GraphQL spec, 6.2.2), each seeing what the ones before it wrote.
    const sm = { modelType: 'Submodel', id: 'urn:gql:sm:fresh', idShort: 'Old', semanticId: globalRef('urn:gql:cd:fresh') };
    const cd = { modelType: 'ConceptDescription', id: 'urn:gql:cd:fresh', idShort: 'OldConcept' };
    await data(CREATE_SUBMODEL, { s: sm });
    await data(CREATE_CD, { cd });
    const shell = sampleShell('urn:gql:shell:fresh', { submodels: [submodelRef(sm.id)] });
    const res = await data(
      `mutation($t: String!, $shell: JSONObject!, $sm: JSONObject!, $cd: JSONObject!) {
        before: createShell(tenant: $t, shell: $shell) { submodels { idShort semanticConceptDescription { idShort } } }
        replaceSubmodel(tenant: $t, id: "${sm.id}", submodel: $sm) { idShort }
        replaceConceptDescription(tenant: $t, id: "${cd.id}", conceptDescription: $cd) { idShort }
        afterReplace: replaceShell(tenant: $t, id: "${shell.id}", shell: $shell) { submodels { idShort semanticConceptDescription { idShort } } }
        deleteSubmodel(tenant: $t, id: "${sm.id}")
        afterDelete: replaceShell(tenant: $t, id: "${shell.id}", shell: $shell) { submodels { idShort } }
      }`,
      { shell, sm: { ...sm, idShort: 'New' }, cd: { ...cd, idShort: 'NewConcept' } },
    );
    expect(res.before.submodels).toEqual([{ idShort: 'Old', semanticConceptDescription: { idShort: 'OldConcept' } }]);
    expect(res.afterReplace.submodels).toEqual([{ idShort: 'New', semanticConceptDescription: { idShort: 'NewConcept' } }]);
    expect(res.afterDelete.submodels).toEqual([]);
    // What a later request reads agrees.
    expect((await data(`query($t: String!) { shell(tenant: $t, id: "${shell.id}") { submodels { id } } }`)).shell.submodels).toEqual([]);
  });

  it('filters submodels by the semantic id\'s key value and by Reference, and resolves their concept descriptions', async () => {
    const list = `query($t: String!, $filter: SubmodelFilterInput) { submodels(tenant: $t, filter: $filter) {
      result { id semanticConceptDescription { id } } pagingMetadata { cursor } } }`;
    expect((await data(list, { filter: { semanticIdValue: CD_ID } })).submodels.result).toEqual([{ id: SM_ID, semanticConceptDescription: { id: CD_ID } }]);
    expect((await data(list, { filter: { semanticId: globalRef('urn:gql:cd:none') } })).submodels.result).toEqual([{ id: OTHER_SM, semanticConceptDescription: null }]);
    expect((await data(list, { filter: { semanticIdValue: 'urn:gql:nothing' } })).submodels.result).toEqual([]);
  });
});

describe('GraphQL submodels: path lists, paged over the paths', () => {
  const PATHS = [
    'MaxRpm', 'Name', 'Temperature', 'Motor', 'Motor.Power', 'Motor.Phases', 'Motor.Phases[0]', 'Motor.Phases[1]',
    'Manual', 'Logo', 'Maker', 'Asset', 'Asset.Serial', 'Drives', 'Overheat', 'Start', 'CanPump',
  ];
  const TOP = PATHS.filter((path) => !/[.[]/.test(path));
  const SMALL = { modelType: 'Submodel', id: 'urn:gql:sm:small', idShort: 'Small', submodelElements: [{ modelType: 'Property', idShort: 'Only', valueType: 'xs:int' }] };
  const SHELL = 'urn:gql:shell:paths';
  const ELEMENT_PATHS = `query($t: String!, $sm: String!, $shellId: String, $limit: Int, $cursor: String, $level: Level) {
    submodelElementPaths(tenant: $t, submodelId: $sm, shellId: $shellId, limit: $limit, cursor: $cursor, level: $level) { result pagingMetadata { cursor } } }`;
  const SUBMODEL_PATHS = `query($t: String!, $filter: SubmodelFilterInput, $limit: Int, $cursor: String, $level: Level) {
    submodelPaths(tenant: $t, filter: $filter, limit: $limit, cursor: $cursor, level: $level) { result pagingMetadata { cursor } } }`;

  /** Every page of `query` (its one root field) at `limit`, following the cursors. */
  async function pages(query: string, variables: Record<string, unknown>, limit: number): Promise<string[][]> {
    const out: string[][] = [];
    let cursor: string | null = null;
    do {
      const page: { result: string[]; pagingMetadata: { cursor: string | null } } = Object.values(await data(query, { ...variables, limit, cursor }))[0] as never;
      out.push(page.result);
      cursor = page.pagingMetadata.cursor;
    } while (cursor && out.length < 100);
    return out;
  }
  const chunks = (all: string[], limit: number) => Array.from({ length: Math.ceil(all.length / limit) }, (_, i) => all.slice(i * limit, (i + 1) * limit));

  beforeAll(async () => {
    tenant = (await server.createTenant()).name;
    await data(CREATE_SUBMODEL, { s: technicalData });
    await data(CREATE_SUBMODEL, { s: SMALL });
    const shell = sampleShell(SHELL, { submodels: [{ type: 'ModelReference', keys: [{ type: 'Submodel', value: SMALL.id }] }] });
    await data('mutation($t: String!, $s: JSONObject!) { createShell(tenant: $t, shell: $s) { id } }', { s: shell });
  });

  it('submodelElementPaths: at most `limit` paths a page wherever they are in the tree; the last page has no cursor', async () => {
    for (const limit of [1, 3, 5, 16, 17, 250]) {
      expect(await pages(ELEMENT_PATHS, { sm: SM_ID }, limit), `limit ${limit}`).toEqual(chunks(PATHS, limit));
    }
    expect(await pages(ELEMENT_PATHS, { sm: SM_ID, level: 'core' }, 5)).toEqual(chunks(TOP, 5));
    // The default limit (100) holds them all.
    expect((await data(ELEMENT_PATHS, { sm: SM_ID })).submodelElementPaths).toEqual({ result: PATHS, pagingMetadata: { cursor: null } });
  });

  it('submodelElementPaths through a shell: only for a submodel the shell references', async () => {
    expect(await pages(ELEMENT_PATHS, { sm: SMALL.id, shellId: SHELL }, 1)).toEqual([['Only']]);
    expect(await errorCode(ELEMENT_PATHS, { sm: SM_ID, shellId: SHELL })).toBe('NOT_FOUND');
    expect(await errorCode(ELEMENT_PATHS, { sm: 'urn:gql:sm:absent' })).toBe('NOT_FOUND');
  });

  it('submodelPaths: one list over all submodels, paged over the paths; a page may end inside a submodel', async () => {
    for (const limit of [1, 4, 17, 18, 250]) {
      expect(await pages(SUBMODEL_PATHS, {}, limit), `limit ${limit}`).toEqual(chunks([...PATHS, 'Only'], limit));
    }
    expect(await pages(SUBMODEL_PATHS, { level: 'core' }, 7)).toEqual(chunks([...TOP, 'Only'], 7));
    expect(await pages(SUBMODEL_PATHS, { filter: { idShort: 'Small' } }, 1)).toEqual([['Only']]);
    expect(await pages(SUBMODEL_PATHS, { filter: { semanticIdValue: CD_ID } }, 10)).toEqual(chunks(PATHS, 10));
  });

  it('rejects limits out of 1..250 and cursors of other lists (BAD_REQUEST)', async () => {
    const cursorOf = async (query: string, variables: Record<string, unknown> = {}) =>
      (Object.values(await data(query, { ...variables, limit: 1 }))[0] as { pagingMetadata: { cursor: string } }).pagingMetadata.cursor;
    const elementCursor = await cursorOf(ELEMENT_PATHS, { sm: SM_ID });
    const submodelCursor = await cursorOf(SUBMODEL_PATHS);
    const elementsCursor = await cursorOf(`query($t: String!, $limit: Int) { submodelElements(tenant: $t, submodelId: "${SM_ID}", limit: $limit) { pagingMetadata { cursor } } }`);
    const submodelsCursor = await cursorOf('query($t: String!, $limit: Int) { submodels(tenant: $t, limit: $limit) { pagingMetadata { cursor } } }');
    for (const [query, variables, foreign] of [
      [ELEMENT_PATHS, { sm: SM_ID }, [submodelCursor, elementsCursor, submodelsCursor]],
      [SUBMODEL_PATHS, {}, [elementCursor, elementsCursor, submodelsCursor]],
    ] as const) {
      for (const limit of [0, 251, -1]) expect(await errorCode(query, { ...variables, limit }), `limit ${limit}`).toBe('BAD_REQUEST');
      for (const cursor of [...foreign, 'forged', Buffer.from('["submodel-paths","1"]').toString('base64url')]) {
        expect(await errorCode(query, { ...variables, cursor }), cursor).toBe('BAD_REQUEST');
      }
    }
  });

  it('needs the reader role like every read: a tenant not in showcase mode answers UNAUTHENTICATED without a token', async () => {
    const closed = (await server.createTenant({ showcase: false })).name;
    expect(await errorCode(ELEMENT_PATHS, { t: closed, sm: SM_ID })).toBe('UNAUTHENTICATED');
    expect(await errorCode(SUBMODEL_PATHS, { t: closed })).toBe('UNAUTHENTICATED');
  });
});
