import { DEFAULT_LIMIT, MAX_LIMIT, MIN_LIMIT } from '../../src/common/cursor';
import { SPHERE_API } from '../tenant-api';
import { Bundler, Json, PART2 } from './bundle';

/**
 * The semantic connector of the sphere service at `{tenant_url}/sphere/api/v1.0/semantics/...` (rest-facade/semantics.ts,
 * src/aas/semantics/, docs/semantic-connector.md), which no AAS specification describes. Experimental.
 */
const TAG = 'Semantic Connector API (experimental)';

const LANG_TEXTS: Json = { type: 'array', items: { type: 'object', required: ['language', 'text'], properties: { language: { type: 'string' }, text: { type: 'string' } } } };
const nullableText = (description: string): Json => ({ type: ['string', 'null'], description });

const COMPONENTS: Record<string, Json> = {
  SemanticMeaning: {
    type: 'object',
    description: 'What a concept is, as its IEC 61360 data specification (or dictionary row) says.',
    required: ['preferredName', 'shortName', 'definition', 'unit', 'unitId', 'symbol', 'dataType', 'valueList'],
    properties: {
      preferredName: LANG_TEXTS,
      shortName: LANG_TEXTS,
      definition: LANG_TEXTS,
      unit: nullableText('The unit symbol.'),
      unitId: nullableText('The id of the unit (e.g. an ECLASS unit IRDI).'),
      symbol: nullableText(''),
      dataType: nullableText('IEC 61360 data type (REAL_MEASURE, STRING, ...) or that of the dictionary.'),
      valueList: { type: 'array', items: { type: 'object', required: ['value', 'valueId'], properties: { value: { type: 'string' }, valueId: { type: ['string', 'null'] } } } },
    },
  },
  SemanticResolution: {
    type: 'object',
    required: ['semanticId', 'key', 'matching', 'equivalentKeys', 'conceptDescriptions', 'entries'],
    properties: {
      semanticId: { type: 'string' },
      key: { type: 'string', description: 'Its equivalence key: an IRDI without version, upper-cased, after `irdi:`; any other id as written (trimmed).' },
      matching: { type: 'string', enum: ['exact', 'equivalent'] },
      equivalentKeys: { type: 'array', items: { type: 'string' }, description: 'The keys it matched by: its own, with `equivalent` also those of its equivalents.' },
      conceptDescriptions: {
        type: 'array',
        items: { type: 'object', required: ['id', 'idShort', 'meaning'], properties: { id: { type: 'string' }, idShort: { type: ['string', 'null'] }, meaning: { $ref: '#/components/schemas/SemanticMeaning' } } },
      },
      entries: { type: 'array', items: { $ref: '#/components/schemas/SemanticEntry' } },
    },
  },
  SemanticEntry: {
    type: 'object',
    required: ['dictionaryId', 'dictionaryName', 'conceptId', 'meaning'],
    properties: {
      dictionaryId: { type: 'string', format: 'uuid' },
      dictionaryName: { type: 'string' },
      conceptId: { type: 'string', description: 'The id as the dictionary writes it.' },
      key: { type: 'string', description: 'Search results: its equivalence key.' },
      isCaseOf: { type: 'array', items: { type: 'string' }, description: 'Search results: the keys of the ids it is a case of.' },
      meaning: { $ref: '#/components/schemas/SemanticMeaning' },
    },
  },
  SemanticDictionary: {
    type: 'object',
    required: ['id', 'name', 'format', 'entryCount', 'createdAt'],
    properties: {
      id: { type: 'string', format: 'uuid' },
      name: { type: 'string' },
      format: { type: 'string', enum: ['aas-json', 'aas-xml', 'aasx', 'eclass-csv'] },
      entryCount: { type: 'integer' },
      createdAt: { type: 'string', format: 'date-time' },
    },
  },
  EquivalenceSet: {
    type: 'object',
    required: ['id', 'name', 'members', 'createdAt'],
    properties: { id: { type: 'string', format: 'uuid' }, name: { type: ['string', 'null'] }, members: { type: 'array', items: { type: 'string' } }, createdAt: { type: 'string', format: 'date-time' } },
  },
  EquivalenceSetInput: {
    type: 'object',
    required: ['members'],
    additionalProperties: false,
    properties: { name: { type: 'string', maxLength: 128 }, members: { type: 'array', minItems: 2, maxItems: 100, items: { type: 'string', minLength: 1, maxLength: 2000 } } },
  },
  SemanticUsage: {
    type: 'object',
    required: ['submodelId', 'idShortPath', 'modelType', 'semanticId'],
    properties: {
      submodelId: { type: 'string' },
      idShortPath: { type: ['string', 'null'], description: 'null: the submodel itself carries it.' },
      modelType: { type: 'string' },
      semanticId: { type: 'string', description: 'Its semantic id (first key) as written.' },
    },
  },
};

const paged = (items: Json): Json => ({
  type: 'object',
  required: ['paging_metadata', 'result'],
  properties: { paging_metadata: { type: 'object', properties: { cursor: { type: 'string', description: 'Where the next page starts; absent on the last page.' } } }, result: { type: 'array', items } },
});
const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const query = (name: string, description: string, schema: Json = { type: 'string' }, required = false): Json => ({ name, in: 'query', required, description, schema });
const PAGING = [
  query('limit', `Page size, ${MIN_LIMIT} to ${MAX_LIMIT} (default ${DEFAULT_LIMIT}); anything else is 400.`, { type: 'integer', minimum: MIN_LIMIT, maximum: MAX_LIMIT }),
  query('cursor', 'The `paging_metadata.cursor` of the previous page.'),
];
const MATCHING = query(
  'matching',
  '`exact` (default): semantic ids equal as written. `equivalent`: equal by the equivalence rules (IRDI spellings and versions, isCaseOf, the tenant\'s equivalence sets; see docs/semantic-connector.md).',
  { type: 'string', enum: ['exact', 'equivalent'], default: 'exact' },
);
const SEMANTIC_ID = query('semanticId', 'The semantic id, base64url-encoded (as the AAS API encodes identifiers).', { type: 'string' }, true);
const ID = { name: 'id', in: 'path', required: true, description: 'The id the creation answered (a UUID); anything else names none (404).', schema: { type: 'string' } };

/** The operation of `method` `path` (below the tenant URL) if it is one of the semantic connector's routes, else undefined. */
export function semanticOperation(bundler: Bundler, method: string, path: string): Json | undefined {
  const base = `${SPHERE_API}/semantics`;
  if (!path.startsWith(`${base}/`)) return undefined;
  for (const [name, node] of Object.entries(COMPONENTS)) {
    const schemas = (bundler.components.schemas ??= {});
    if (schemas[name] !== undefined && schemas[name] !== node) throw new Error(`The component schemas/${name} exists already in the bundle.`);
    schemas[name] = node;
  }
  const part2 = (name: string) => bundler.copy({ $ref: `#/components/responses/${name}` }, PART2);
  const errors = (...statuses: ('400' | '401' | '403' | '404')[]) =>
    Object.fromEntries(statuses.map((s) => [s, part2({ '400': 'bad-request', '401': 'unauthorized', '403': 'forbidden', '404': 'not-found' }[s])]));
  const result = (description: string) => ({ description, content: { 'application/json': { schema: bundler.copy({ $ref: '#/components/schemas/Result' }, PART2) } } });
  const ok = (description: string, schema: Json) => ({ '200': { description, content: { 'application/json': { schema } } } });
  const operations: Record<string, Json> = {
    'GET /resolve': {
      summary: 'Resolves a semantic id to what the tenant knows of it',
      operationId: 'ResolveSemanticId',
      description:
        "The tenant's concept descriptions (their IEC 61360 data specification) and the entries of its dictionaries that match the id. `semanticId` " +
        'may also be base64url of a Reference in JSON: each of its keys is resolved, one result per key. Needs the tenant role reader.',
      parameters: [{ ...SEMANTIC_ID, description: 'base64url of the semantic id, or of a Reference in JSON.' }, MATCHING],
      responses: { ...ok('One resolution per id', { type: 'object', required: ['result'], properties: { result: { type: 'array', items: ref('SemanticResolution') } } }), ...errors('400', '401', '404') },
    },
    'GET /dictionaries': {
      summary: "Returns the tenant's dictionaries",
      operationId: 'GetAllSemanticDictionaries',
      description: 'In import order, paged. Needs the tenant role reader.',
      parameters: PAGING,
      responses: { ...ok('The dictionaries', paged(ref('SemanticDictionary'))), ...errors('400', '401', '404') },
    },
    'POST /dictionaries': {
      summary: 'Imports a dictionary',
      operationId: 'PostSemanticDictionary',
      description:
        'A file in the multipart part `file`: the concept descriptions of an AAS environment (JSON, XML, any version the AAS import reads, or an AASX ' +
        'package), or an ECLASS Basic CSV property table (`eclass-csv`, see docs/semantic-connector.md). All entries are stored in one transaction, ' +
        'or none: a concept description without id, a CSV line with the wrong number of fields or without IrdiPR is 400. At most 500,000 entries, ' +
        '100 dictionaries per tenant. Needs the tenant role contributor.',
      parameters: [
        query('name', 'A name for the dictionary (at most 128 characters); absent: the file name.'),
        query('format', 'What the file is; absent: told by the part\'s content type, the file name (.csv, .json, .xml, .aasx) or the content.', { type: 'string', enum: ['aas-json', 'aas-xml', 'aasx', 'eclass-csv'] }),
      ],
      requestBody: { required: true, content: { 'multipart/form-data': { schema: { type: 'object', required: ['file'], properties: { file: { type: 'string', format: 'binary' } } } } } },
      responses: {
        '201': { description: 'Imported', headers: { Location: { description: 'The URL of the dictionary.', schema: { type: 'string' } } }, content: { 'application/json': { schema: ref('SemanticDictionary') } } },
        ...errors('400', '401', '403', '404'),
        '413': result('The file is larger than FILE_UPLOAD_LIMIT.'),
        '415': result('The body is not multipart/form-data.'),
      },
    },
    'GET /dictionaries/{id}': {
      summary: 'Returns a dictionary',
      operationId: 'GetSemanticDictionaryById',
      description: 'Needs the tenant role reader.',
      parameters: [ID],
      responses: { ...ok('The dictionary', ref('SemanticDictionary')), ...errors('401', '404') },
    },
    'DELETE /dictionaries/{id}': {
      summary: 'Deletes a dictionary and its entries',
      operationId: 'DeleteSemanticDictionaryById',
      description: 'Needs the tenant role contributor.',
      parameters: [ID],
      responses: { '204': { description: 'Deleted' }, ...errors('401', '403', '404') },
    },
    'GET /entries': {
      summary: 'Searches the dictionary entries by text',
      operationId: 'SearchSemanticEntries',
      description: 'The entries whose id, preferred or short names or definitions contain `text` (case-insensitive), in import order, paged. Needs the tenant role reader.',
      parameters: [query('text', 'The text to look for (1 to 256 characters).', { type: 'string', minLength: 1, maxLength: 256 }, true), query('dictionaryId', 'Only entries of this dictionary.'), ...PAGING],
      responses: { ...ok('The entries', paged(ref('SemanticEntry'))), ...errors('400', '401', '404') },
    },
    'GET /equivalence-sets': {
      summary: "Returns the tenant's equivalence sets",
      operationId: 'GetAllEquivalenceSets',
      description: 'In creation order, paged. Needs the tenant role reader.',
      parameters: PAGING,
      responses: { ...ok('The sets', paged(ref('EquivalenceSet'))), ...errors('400', '401', '404') },
    },
    'POST /equivalence-sets': {
      summary: 'Declares semantic ids equivalent',
      operationId: 'PostEquivalenceSet',
      description:
        'From now on, matching with `matching=equivalent` treats the members (and what is equivalent to each) as one concept. 2 to 100 distinct ids; ' +
        'at most 10,000 sets per tenant. Needs the tenant role contributor.',
      requestBody: { required: true, content: { 'application/json': { schema: ref('EquivalenceSetInput') } } },
      responses: {
        '201': { description: 'Created', headers: { Location: { description: 'The URL of the set.', schema: { type: 'string' } } }, content: { 'application/json': { schema: ref('EquivalenceSet') } } },
        ...errors('400', '401', '403', '404'),
        '413': result('The body is larger than BODY_LIMIT.'),
        '415': result('The body is not JSON.'),
      },
    },
    'GET /equivalence-sets/{id}': {
      summary: 'Returns an equivalence set',
      operationId: 'GetEquivalenceSetById',
      description: 'Needs the tenant role reader.',
      parameters: [ID],
      responses: { ...ok('The set', ref('EquivalenceSet')), ...errors('401', '404') },
    },
    'DELETE /equivalence-sets/{id}': {
      summary: 'Deletes an equivalence set',
      operationId: 'DeleteEquivalenceSetById',
      description: 'Needs the tenant role contributor.',
      parameters: [ID],
      responses: { '204': { description: 'Deleted' }, ...errors('401', '403', '404') },
    },
    'GET /usages': {
      summary: 'Where a semantic id is used',
      operationId: 'GetSemanticIdUsages',
      description:
        'The submodels (semanticId) and submodel elements (first key of their semanticId) of the tenant that carry the id, or with `matching=equivalent` ' +
        'an id equivalent to it: in insertion order of the submodels, each submodel before its elements in document order, paged. Needs the tenant role reader.',
      parameters: [SEMANTIC_ID, MATCHING, ...PAGING],
      responses: { ...ok('The usages', paged(ref('SemanticUsage'))), ...errors('400', '401', '404') },
    },
    'GET /usages/shells': {
      summary: 'The shells whose submodels use a semantic id',
      operationId: 'GetSemanticIdShells',
      description: 'The ids of the shells that reference a submodel carrying the id (on the submodel or one of its elements), in insertion order, paged. Needs the tenant role reader.',
      parameters: [SEMANTIC_ID, MATCHING, ...PAGING],
      responses: { ...ok('The shell ids', paged({ type: 'string' })), ...errors('400', '401', '404') },
    },
  };
  const operation = operations[`${method.toUpperCase()} ${path.slice(base.length)}`];
  if (!operation) return undefined;
  return { tags: [TAG], ...operation, responses: { ...operation.responses, default: part2('default') } };
}
