import { VDI_2770_CLASSES } from '../../src/common/vdi2770';
import { DEFAULT_LIMIT, MAX_LIMIT, MIN_LIMIT } from '../../src/common/cursor';
import { FILES_API } from '../files';
import { SPHERE_API } from '../tenant-api';
import { Bundler, Json, PART2 } from './bundle';
import { descriptorQueryOperation } from './descriptor-query-operations';

/**
 * The operations of the tenant routes that no AAS specification describes, written here in the official files'
 * style (tags, summaries, operation ids, component schemas and parameters, the Part 2 error responses): the
 * file repository at `{tenant_url}/sphere/api/v1.0/files` and, deprecated, at `{tenant_url}/api/v3.0/files`
 * (files.ts), and the AASX import at `/sphere/api/v1.0/import` and `/api/v3.0/upload` (aasx-import.ts).
 *
 * The VDI 2770 classes come from src/common/vdi2770.ts (pure data, shared with the file service); the limits repeat
 * src/files/metadata.ts, which the façade may not import: test/integration/openapi.test.ts holds the two together,
 * and real answers to the schemas.
 */

/** src/files/metadata.ts: MAX_ATTRIBUTES, MAX_ATTRIBUTE_LENGTH, MAX_DISPLAY_NAME_LENGTH. */
export const FILE_METADATA_LIMITS = { attributes: 50, attributeLength: 2048, displayNameLength: 2048 };

const TAG = 'File Repository API';
const DEPRECATED_TAG = 'File Repository API (deprecated location)';
const IMPORT_TAG = 'AASX Import API';

const schema = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const parameter = (name: string) => ({ $ref: `#/components/parameters/${name}` });
const string = (description: string, extra: Json = {}) => ({ type: 'string', description, ...extra });
const binary = { type: 'string', format: 'binary' };

/** What an import answers (AasxImportResult). */
const IMPORT_RESULT = {
  type: 'object',
  description: 'What the import created or overwrote, the supplementary files it stored in the file repository, and what it noticed.',
  required: ['shells', 'submodels', 'conceptDescriptions', 'files', 'warnings', 'counts'],
  properties: {
    shells: { type: 'array', items: schema('ImportedIdentifiable') },
    submodels: { type: 'array', items: schema('ImportedIdentifiable') },
    conceptDescriptions: { type: 'array', items: schema('ImportedIdentifiable') },
    files: {
      type: 'array',
      description: "The package's files that File values or thumbnails name, with the tfp their references now hold.",
      items: {
        type: 'object',
        required: ['path', 'tfp'],
        properties: { path: string('The part name in the package.'), tfp: string('The stored file (see the File Repository API).') },
      },
    },
    warnings: {
      type: 'array',
      items: { type: 'string' },
      description:
        'What was read leniently, left out or not carried over (V2.0 packages, parts that cannot be read, constraints, missing files): each text once, `(×n)` where it came n times; at most 200, then a line saying how many more.',
    },
    counts: {
      type: 'object',
      description: 'What was stored, in numbers, and the warnings by kind.',
      required: ['shells', 'submodels', 'conceptDescriptions', 'elements', 'files', 'warnings'],
      properties: {
        shells: { type: 'integer' },
        submodels: { type: 'integer' },
        conceptDescriptions: { type: 'integer' },
        elements: { type: 'integer', description: 'Submodel elements, at every depth.' },
        files: { type: 'integer' },
        warnings: {
          type: 'object',
          required: ['package', 'version', 'dropped', 'constraint', 'file'],
          properties: {
            package: { type: 'integer', description: 'About the package itself (a part it names but lacks, ...).' },
            version: { type: 'integer', description: 'A document of another AAS version (V3.1, V2.0, V1.0, the V3.0 release candidate) read as V3.0, and what did not map.' },
            dropped: { type: 'integer', description: 'Parts that cannot be read, documents with an id given before, unknown properties: left out.' },
            constraint: { type: 'integer', description: 'Constraints of the metamodel the stored documents break.' },
            file: { type: 'integer', description: 'File values and thumbnails naming no file of the package (kept).' },
          },
        },
      },
    },
  },
};

/** The components the operations below refer to, by kind and name. */
const COMPONENTS: Record<'schemas' | 'parameters', Record<string, Json>> = {
  schemas: {
    AssetLink: {
      type: 'object',
      description: 'An asset link (AAS API V3.1): the name and value of an asset id; the name `globalAssetId` stands for the global asset id (AASd-116).',
      required: ['name', 'value'],
      additionalProperties: false,
      properties: {
        name: string('The asset id\'s name.', { minLength: 1, maxLength: 64 }),
        value: string('The asset id\'s value.', { minLength: 1, maxLength: 2048 }),
      },
    },
    Vdi2770ClassId: {
      type: 'string',
      description: `A VDI 2770 (Blatt 1:2020) document class id: ${Object.entries(VDI_2770_CLASSES)
        .map(([id, name]) => `\`${id}\` ${name}`)
        .join(', ')}.`,
      enum: Object.keys(VDI_2770_CLASSES),
    },
    FileAttribute: {
      type: 'object',
      required: ['key', 'value'],
      additionalProperties: false,
      properties: {
        key: string('Non-empty; distinct within a file.', { minLength: 1, maxLength: FILE_METADATA_LIMITS.attributeLength }),
        value: string('Any text, empty included.', { maxLength: FILE_METADATA_LIMITS.attributeLength }),
      },
    },
    StoredFileMetadata: {
      type: 'object',
      description:
        'What clients set about a file. A PUT replaces all three fields: a field left out (or `null`) is cleared. Anything that breaks the ' +
        'rules is 400, every problem a message of the Result.',
      additionalProperties: false,
      properties: {
        displayName: { type: ['string', 'null'], maxLength: FILE_METADATA_LIMITS.displayNameLength },
        classification: { oneOf: [schema('Vdi2770ClassId'), { type: 'null' }] },
        attributes: {
          type: ['array', 'null'],
          description: `At most ${FILE_METADATA_LIMITS.attributes}, with distinct keys.`,
          maxItems: FILE_METADATA_LIMITS.attributes,
          items: schema('FileAttribute'),
        },
      },
    },
    StoredFile: {
      type: 'object',
      description:
        'A file of the tenant\'s file repository: what the upload captured (read-only) and the metadata clients set (`displayName` and ' +
        '`classification` are left out when not set). The entity tag of the content is the `ETag` header of uploads and downloads.',
      required: ['tfp', 'fileName', 'contentType', 'size', 'sha256', 'attributes', 'createdAt', 'updatedAt'],
      properties: {
        tfp: string(
          'The service file path the server made at upload, `file:/sphere/{tenant}/{documentId}/{fileName}` (documentId a UUID, the file ' +
            'name percent-encoded): what File values and thumbnails hold to name this file. It stays the same when the content is replaced.',
          { pattern: '^file:/sphere/[a-z0-9-]+/[0-9a-f-]{36}/[^/]+$', example: 'file:/sphere/acme/3f2b6c1e-9d0a-4c55-8f57-0b6f2c9d7e10/manual.pdf' },
        ),
        fileName: string("The upload part's file name (its last path segment, 1 to 255 characters).", { minLength: 1, maxLength: 255 }),
        contentType: string("The upload part's `Content-Type`.", { example: 'application/pdf' }),
        size: { type: 'integer', minimum: 0, description: 'Bytes.' },
        sha256: string('SHA-256 of the content, lower-case hex.', { pattern: '^[0-9a-f]{64}$' }),
        displayName: { type: 'string', maxLength: FILE_METADATA_LIMITS.displayNameLength },
        classification: schema('Vdi2770ClassId'),
        attributes: { type: 'array', maxItems: FILE_METADATA_LIMITS.attributes, items: schema('FileAttribute') },
        createdAt: string('When the file was uploaded.', { format: 'date-time' }),
        updatedAt: string('When its content or metadata last changed.', { format: 'date-time' }),
      },
    },
    GetStoredFilesResult: {
      type: 'object',
      required: ['paging_metadata', 'result'],
      properties: {
        paging_metadata: {
          type: 'object',
          properties: { cursor: string('Where the next page starts (the `cursor` parameter); absent on the last page.') },
        },
        result: { type: 'array', items: schema('StoredFile') },
      },
    },
    AasxImportResult: IMPORT_RESULT,
    UploadResult: {
      ...IMPORT_RESULT,
      description: `${IMPORT_RESULT.description} \`aasIds\` lists the shells' ids again, as the BaSyx AAS Web UI reads them.`,
      required: [...IMPORT_RESULT.required, 'aasIds'],
      properties: { ...IMPORT_RESULT.properties, aasIds: { type: 'array', items: { type: 'string' } } },
    },
    ImportedIdentifiable: {
      type: 'object',
      required: ['id', 'status'],
      properties: { id: { type: 'string' }, status: { type: 'string', enum: ['created', 'updated'] } },
    },
    ImportProgress: {
      type: 'object',
      description: 'Where a running import is.',
      required: ['phase', 'elapsedMs'],
      additionalProperties: false,
      properties: {
        phase: {
          type: 'string',
          enum: ['reading', 'verifying', 'storing', 'done'],
          description: '`reading` the package, `verifying` its documents, `storing` them and its files (in one transaction), `done` (the answer is on its way).',
        },
        elapsedMs: { type: 'integer', minimum: 0, description: 'Milliseconds since the server began the import (after the upload).' },
        documents: {
          type: 'object',
          description: 'While documents are verified or stored: how many of how many (shells, submodels and concept descriptions).',
          required: ['done', 'of'],
          additionalProperties: false,
          properties: { done: { type: 'integer', minimum: 0 }, of: { type: 'integer', minimum: 0 } },
        },
      },
    },
  },
  parameters: {
    Tfp: {
      name: 'tfp',
      in: 'path',
      required: true,
      description:
        "The file's tfp (`file:/sphere/{tenant}/{documentId}/{fileName}`, as the upload answered it) in either encoding: percent-encoded as " +
        'one path segment (`encodeURIComponent`: `file%3A%2Fsphere%2Facme%2F...`, the `%` escapes of the file name encoded again: `%20` ' +
        'becomes `%2520`; clients that fill in path templates, such as this console, do it themselves) or UTF8-BASE64-URL-encoded as AAS ' +
        'identifiers are (with or without padding). Neither, or no tfp of this server\'s shape (`..`, a bad escape, no UUID): 400. A tfp ' +
        "naming no file of this tenant (another tenant's included): 404.",
      style: 'simple',
      schema: { type: 'string' },
    },
    FileRange: {
      name: 'Range',
      in: 'header',
      required: false,
      description:
        'One byte range (`bytes=first-last`, `bytes=first-` or `bytes=-suffix`): 206 with that part. Several ranges, or a header that is ' +
        'no byte range, get the whole file (200); a range outside the file is 416.',
      schema: { type: 'string', example: 'bytes=0-1023' },
    },
    FileIfRange: {
      name: 'If-Range',
      in: 'header',
      required: false,
      description: 'The ETag the client holds: the range is served only while the content still has it, else the whole file.',
      schema: { type: 'string' },
    },
    FileIfNoneMatch: {
      name: 'If-None-Match',
      in: 'header',
      required: false,
      description: 'Entity tags (or `*`), compared weakly: 304 when one is the content\'s ETag.',
      schema: { type: 'string' },
    },
  },
};

/** The response headers of the file routes. */
const HEADERS: Record<string, Json> = {
  ETag: { description: 'The entity tag of the content, `"sha256-{base64url of its SHA-256}"`.', schema: { type: 'string' } },
  Location: { description: "The new file's path (absolute path, the tfp percent-encoded), below the prefix the request used.", schema: { type: 'string' } },
  'Content-Disposition': {
    description: '`attachment` with the file name, as ASCII fallback and as RFC 8187 UTF-8 (`filename*`).',
    schema: { type: 'string' },
    example: 'attachment; filename="manual.pdf"; filename*=UTF-8\'\'manual.pdf',
  },
  'Accept-Ranges': { description: 'Single byte ranges are served.', schema: { type: 'string', enum: ['bytes'] } },
  'Content-Range': { description: 'The part sent, `bytes {first}-{last}/{size}`.', schema: { type: 'string' } },
  'Cache-Control': { description: 'Caches revalidate (If-None-Match) before every reuse.', schema: { type: 'string', enum: ['private, no-cache'] } },
};
const DEPRECATION_HEADERS: Record<string, Json> = {
  Deprecation: { description: 'RFC 9745: this location is deprecated, since the date given (`@` and seconds since the epoch).', schema: { type: 'string' } },
  Link: {
    description: 'The path of the same resource at the successor location, `/sphere/api/v1.0/files...`: `<{path}>; rel="successor-version"`.',
    schema: { type: 'string' },
  },
};

type Status = '200' | '201' | '204' | '206' | '304' | '400' | '401' | '403' | '404' | '409' | '413' | '415' | '416' | 'default';

/**
 * One operation, as served at either location. A parameter `{ part2: name }` is that Part 2 parameter. A response
 * `true` is the Part 2 response of its status (400, 401, 403, 404; `default` is added to every operation), a string
 * the description of an error of this server's with the Result as its body, anything else the response itself.
 */
interface PlatformOperation {
  summary: string;
  description: string;
  operationId: string;
  parameters?: Json[];
  requestBody?: Json;
  responses: Partial<Record<Status, Json>>;
}

const multipart = (description: string, properties: Record<string, Json>): Json => ({
  description,
  required: true,
  content: {
    'multipart/form-data': {
      schema: { type: 'object', required: ['file'], additionalProperties: false, properties: { file: { ...binary, description: "The content; the part's file name and `Content-Type` are kept." }, ...properties } },
      encoding: { file: { contentType: '*/*' } },
    },
  },
});

const stored = (description: string, headers: string[] = []): Json => ({
  description,
  ...(headers.length ? { headers: Object.fromEntries(headers.map((h) => [h, HEADERS[h]])) } : {}),
  content: { 'application/json': { schema: schema('StoredFile') } },
});

const UPLOAD_ERRORS = {
  '413': 'The file is larger than the upload limit (FILE_UPLOAD_LIMIT); nothing is stored.',
  '415': 'The body is not `multipart/form-data`.',
};

/** The error answers of an operation that takes a JSON body. */
const JSON_BODY_ERRORS = {
  '400': true,
  '401': true,
  '403': true,
  '404': true,
  '413': 'The body is larger than the body limit.',
  '415': 'The body is not `application/json` (UTF-8).',
};

/** The routes below a location's `/files`, by `METHOD path`. */
const FILE_OPERATIONS: Record<string, PlatformOperation> = {
  'GET /files': {
    summary: 'Returns the files of the tenant that match every filter given',
    operationId: 'GetAllFiles',
    description:
      'Every filter given must hold: `displayName`, `classification`, `fileName` and attributes match exactly, `displayNameStartsWith` and ' +
      '`displayNameContains` case-sensitively with `%` and `_` as plain characters; `attribute.{key}={value}` may repeat for several ' +
      'attributes (all must match). Files come in upload order, paged like the AAS API. A query parameter not listed here is 400.',
    parameters: [
      { name: 'displayName', in: 'query', required: false, schema: { type: 'string', maxLength: FILE_METADATA_LIMITS.displayNameLength } },
      ...['StartsWith', 'Contains'].map((match) => ({
        name: `displayName${match}`,
        in: 'query',
        required: false,
        description: `Files whose displayName ${match === 'Contains' ? 'contains' : 'starts with'} this text (case-sensitive).`,
        schema: { type: 'string', minLength: 1, maxLength: FILE_METADATA_LIMITS.displayNameLength },
      })),
      { name: 'classification', in: 'query', required: false, schema: schema('Vdi2770ClassId') },
      { name: 'contentType', in: 'query', required: false, description: 'A media type (`application/pdf`) or a whole type (`image/*`).', schema: { type: 'string' } },
      { name: 'fileName', in: 'query', required: false, schema: { type: 'string' } },
      {
        name: 'attribute',
        in: 'query',
        required: false,
        description:
          'Attribute filters, each its own query parameter `attribute.{key}={value}` (the key after the dot): `?attribute.batch=42&attribute.site=Bremen`.',
        style: 'form',
        explode: true,
        schema: { type: 'object', propertyNames: { pattern: '^attribute\\..+' }, additionalProperties: { type: 'string' } },
      },
      {
        name: 'limit',
        in: 'query',
        required: false,
        description: `The maximum number of files in the page (${MIN_LIMIT} to ${MAX_LIMIT}; more is 400).`,
        schema: { type: 'integer', minimum: MIN_LIMIT, maximum: MAX_LIMIT, default: DEFAULT_LIMIT },
      },
      { part2: 'Cursor' },
    ],
    responses: { '200': { description: 'A page of files', content: { 'application/json': { schema: schema('GetStoredFilesResult') } } }, '400': true, '401': true, '404': true },
  },
  'POST /files': {
    summary: "Uploads a file to the tenant's file repository",
    operationId: 'PostFile',
    description:
      'The server names the file with a new tfp and answers its record. The content streams into the store; the metadata fields break ' +
      'no rule or nothing is stored (400).',
    requestBody: multipart('The file, and optionally its metadata (`StoredFileMetadata`) as form fields.', {
      displayName: { type: 'string', maxLength: FILE_METADATA_LIMITS.displayNameLength },
      classification: schema('Vdi2770ClassId'),
      attributes: {
        type: 'string',
        description: 'JSON text: a list of `{"key": ..., "value": ...}`.',
        contentMediaType: 'application/json',
        contentSchema: { type: 'array', maxItems: FILE_METADATA_LIMITS.attributes, items: schema('FileAttribute') },
        example: '[{"key":"batch","value":"42"}]',
      },
    }),
    responses: { '201': stored('File stored', ['Location', 'ETag']), '400': true, '401': true, '403': true, '404': true, ...UPLOAD_ERRORS },
  },
  'GET /files/{tfp}': {
    summary: 'Downloads the content of a file',
    operationId: 'GetFileByTfp',
    description:
      'Streams the content with the `Content-Type` captured at upload, as an attachment (`X-Content-Type-Options: nosniff`, a sandboxing ' +
      '`Content-Security-Policy`). HEAD answers the same headers without the content.',
    parameters: [parameter('Tfp'), parameter('FileRange'), parameter('FileIfRange'), parameter('FileIfNoneMatch')],
    responses: {
      '200': {
        description: 'The content',
        headers: { ETag: HEADERS.ETag, 'Content-Disposition': HEADERS['Content-Disposition'], 'Accept-Ranges': HEADERS['Accept-Ranges'], 'Cache-Control': HEADERS['Cache-Control'] },
        content: { '*/*': { schema: binary } },
      },
      '206': {
        description: 'The byte range asked for',
        headers: { 'Content-Range': HEADERS['Content-Range'], ETag: HEADERS.ETag, 'Content-Disposition': HEADERS['Content-Disposition'], 'Accept-Ranges': HEADERS['Accept-Ranges'] },
        content: { '*/*': { schema: binary } },
      },
      '304': { description: 'Not modified: If-None-Match names the content', headers: { ETag: HEADERS.ETag } },
      '400': true,
      '401': true,
      '404': true,
      '416': 'The range lies outside the file; `Content-Range: bytes */{size}`.',
    },
  },
  'PUT /files/{tfp}': {
    summary: 'Replaces the content of a file',
    operationId: 'PutFileByTfp',
    description:
      'Keeps the tfp (every reference stays valid), the file name and the metadata; the content type is the new part\'s. The old content ' +
      'is served until the new one is completely stored. Metadata fields are 400 here (they are set at `/metadata`).',
    parameters: [parameter('Tfp')],
    requestBody: multipart('The new content in the part `file`, nothing else.', {}),
    responses: { '200': stored('Content replaced', ['ETag']), '400': true, '401': true, '403': true, '404': true, ...UPLOAD_ERRORS },
  },
  'DELETE /files/{tfp}': {
    summary: 'Deletes a file',
    operationId: 'DeleteFileByTfp',
    description: 'Deletes the file and its content for good. References to it (File values, thumbnails) are not checked.',
    parameters: [parameter('Tfp')],
    responses: { '204': { description: 'File deleted' }, '400': true, '401': true, '403': true, '404': true },
  },
  'GET /files/{tfp}/metadata': {
    summary: 'Returns the record of a file',
    operationId: 'GetFileMetadataByTfp',
    description: 'What the upload captured and the metadata set.',
    parameters: [parameter('Tfp')],
    responses: { '200': stored('The file record'), '400': true, '401': true, '404': true },
  },
  'PUT /files/{tfp}/metadata': {
    summary: 'Replaces the metadata of a file',
    operationId: 'PutFileMetadataByTfp',
    description: 'Sets `displayName`, `classification` and `attributes` together; what the body leaves out is cleared.',
    parameters: [parameter('Tfp')],
    requestBody: { required: true, content: { 'application/json': { schema: schema('StoredFileMetadata') } } },
    responses: { '200': stored('Metadata replaced'), ...JSON_BODY_ERRORS },
  },
};

const IMPORT_OPERATION: PlatformOperation = {
  summary: 'Imports an AASX package into the tenant',
  operationId: 'ImportAasxPackage',
  description:
    'Every shell, submodel and concept description of the package is created or overwritten, and the supplementary files that File ' +
    'values and thumbnails name are stored in the file repository, their references rewritten to the new tfps: all in one transaction, ' +
    'so on any error nothing changes. The package holds exactly one shell (400 otherwise; `POST /api/v3.0/upload` takes any number). ' +
    'Its spec part is read from JSON, V3.0 XML or V2.0 XML; unsafe packages (path tricks, zip bombs, DTDs) are 400.',
  parameters: [
    {
      name: 'progress',
      in: 'query',
      required: false,
      description:
        'A UUID the client draws for this import, to watch it while it runs with `GET /sphere/api/v1.0/import/progress/{importId}`. ' +
        'Not a UUID: 400; one an import running on this tenant already has: 409.',
      schema: { type: 'string', format: 'uuid' },
    },
  ],
  requestBody: {
    description: 'The package in the part `file`, nothing else.',
    required: true,
    content: {
      'multipart/form-data': {
        schema: { type: 'object', required: ['file'], additionalProperties: false, properties: { file: binary } },
        encoding: { file: { contentType: 'application/asset-administration-shell-package, application/octet-stream' } },
      },
    },
  },
  responses: {
    '200': { description: 'Package imported', content: { 'application/json': { schema: schema('AasxImportResult') } } },
    '400': true,
    '401': true,
    '403': true,
    '404': true,
    '409': 'An import running on this tenant has the `progress` id already.',
    '413': 'The package is larger than the upload limit (FILE_UPLOAD_LIMIT).',
    '415': UPLOAD_ERRORS['415'],
  },
};

/** `GET /sphere/api/v1.0/import/progress/{importId}`: where an import that its client watches is. */
const IMPORT_PROGRESS_OPERATION: PlatformOperation = {
  summary: 'Returns where a running import is',
  operationId: 'GetImportProgress',
  description:
    'The phase of the import started with `POST /sphere/api/v1.0/import?progress={importId}`, while it runs, answered to the caller that ' +
    'started it (the same bearer token; none on a showcase tenant) by the server that runs it, from memory: it also answers while the ' +
    'import holds the database. Any other caller, an id no running import has, one that has ended: 404.',
  parameters: [
    {
      name: 'importId',
      in: 'path',
      required: true,
      description: 'The UUID the client sent as `progress` with the import (not a UUID: 400).',
      schema: { type: 'string', format: 'uuid' },
    },
  ],
  responses: {
    '200': { description: 'Where the import is', content: { 'application/json': { schema: schema('ImportProgress') } } },
    '400': true,
    '404': true,
  },
};

/** `POST /api/v3.0/upload`, the BaSyx AAS Environment's upload: AASX, JSON or XML, any number of shells. */
const UPLOAD_OPERATION: PlatformOperation = {
  summary: 'Imports an AASX package or a JSON or XML environment into the tenant (BaSyx AAS Environment upload)',
  operationId: 'UploadEnvironment',
  description:
    'As the BaSyx AAS Environment does: the file is an AASX package, a JSON environment or an XML environment (V3.0, or V2.0 converted), ' +
    'told by the part\'s content type (`application/asset-administration-shell-package`, `application/json`, `application/xml`, `text/xml`), ' +
    'else by the file name (`.aasx`, `.json`, `.xml`), else by its first bytes (a zip, `{`, `<`). Every shell (any number, none too), submodel ' +
    'and concept description is created or overwritten in one transaction; a package\'s supplementary files are stored as with ' +
    '`POST /sphere/api/v1.0/import`, while the File values of a plain environment stay as they are. A JSON or XML environment is read into ' +
    'memory and may be at most 256 MiB (413).',
  parameters: [
    {
      name: 'ignore-duplicates',
      in: 'query',
      required: false,
      description: 'Sent by BaSyx clients; accepted for them and without effect here: an id already stored is overwritten either way.',
      schema: { type: 'boolean', default: false },
    },
  ],
  requestBody: {
    description: 'The file in the part `file`, nothing else.',
    required: true,
    content: {
      'multipart/form-data': {
        schema: { type: 'object', required: ['file'], additionalProperties: false, properties: { file: binary } },
        encoding: {
          file: { contentType: 'application/asset-administration-shell-package, application/json, application/xml, text/xml, application/octet-stream' },
        },
      },
    },
  },
  responses: {
    '200': { description: 'Imported', content: { 'application/json': { schema: schema('UploadResult') } } },
    '400': true,
    '401': true,
    '403': true,
    '404': true,
    '413': 'The file is larger than the upload limit (FILE_UPLOAD_LIMIT), or a JSON or XML environment larger than 256 MiB.',
    '415': UPLOAD_ERRORS['415'],
  },
};

const DISCOVERY_TAG = 'Asset Administration Shell Basic Discovery API';

/**
 * `POST /lookup/shellsByAssetLink`, SearchAllAssetAdministrationShellIdsByAssetLink of the AAS API V3.1, which
 * V3.0.4 lacks: served by the implicit discovery and by explicit discovery instances.
 */
const ASSET_LINK_SEARCH: PlatformOperation = {
  summary: 'Returns a list of Asset Administration Shell ids linked to all of the given asset links',
  operationId: 'SearchAllAssetAdministrationShellIdsByAssetLink',
  description:
    'The discovery operation of the AAS API V3.1, served here beside the V3.0.4 operations: the asset links are in the body (no length limit ' +
    'of a query string), every one must match (by name and value), the answer is paged like `GET /lookup/shells`. An empty list matches ' +
    'every shell. A link that breaks the schema is 400, every problem a message naming its index.',
  parameters: [{ part2: 'Limit' }, { part2: 'Cursor' }],
  requestBody: {
    description: 'The asset links, at most 1000.',
    required: true,
    content: { 'application/json': { schema: { type: 'array', maxItems: 1000, items: schema('AssetLink') } } },
  },
  responses: { '200': 'Requested Asset Administration Shell ids', ...JSON_BODY_ERRORS },
};

/** The Part 2 response each error status refers to. */
const PART2_RESPONSES: Partial<Record<Status, string>> = { '400': 'bad-request', '401': 'unauthorized', '403': 'forbidden', '404': 'not-found', default: 'default' };

/**
 * The operation `method` `path` (below the tenant URL, OpenAPI syntax) has among the platform's own routes, or
 * undefined. `apiBase` is the AAS API's (`/api/v3.0`): file routes there are the deprecated location.
 */
export function platformOperation(bundler: Bundler, method: string, path: string, apiBase: string): Json | undefined {
  const key = `${method.toUpperCase()} ${path}`;
  const descriptorQuery = descriptorQueryOperation(bundler, method, path, apiBase);
  if (descriptorQuery) return descriptorQuery;
  if (method.toUpperCase() === 'POST' && path.endsWith(`${apiBase}/lookup/shellsByAssetLink`)) {
    const operation = build(bundler, ASSET_LINK_SEARCH, false);
    operation.responses['200'] = {
      description: 'Requested Asset Administration Shell ids',
      content: {
        'application/json': {
          schema: {
            allOf: [
              bundler.copy({ $ref: '#/components/schemas/PagedResult' }, PART2),
              { type: 'object', properties: { result: { type: 'array', items: { type: 'string' } } } },
            ],
          },
        },
      },
    };
    return { ...operation, tags: [DISCOVERY_TAG] };
  }
  if (key === `POST ${SPHERE_API}/import`) return { ...build(bundler, IMPORT_OPERATION, false), tags: [IMPORT_TAG] };
  if (key === `GET ${SPHERE_API}/import/progress/{importId}`) return { ...build(bundler, IMPORT_PROGRESS_OPERATION, false), tags: [IMPORT_TAG] };
  if (key === `POST ${apiBase}/upload`) return { ...build(bundler, UPLOAD_OPERATION, false), tags: [IMPORT_TAG] };
  for (const [base, deprecated] of [
    [FILES_API, false],
    [apiBase, true],
  ] as const) {
    const operation = path.startsWith(`${base}/files`) ? FILE_OPERATIONS[`${method.toUpperCase()} ${path.slice(base.length)}`] : undefined;
    if (operation) return build(bundler, operation, deprecated);
  }
  return undefined;
}

function build(bundler: Bundler, op: PlatformOperation, deprecated: boolean): Json {
  addComponents(bundler);
  const part2 = (kind: string, name: string) => bundler.copy({ $ref: `#/components/${kind}/${name}` }, PART2);
  const result = part2('schemas', 'Result');
  const responses: Json = {};
  for (const [status, response] of Object.entries({ ...op.responses, default: true }) as [Status, Json][]) {
    let out: Json;
    if (response === true) {
      const ref = part2('responses', PART2_RESPONSES[status]!);
      // A reference cannot carry headers of its own: the deprecated location's copy is the response itself, with them.
      out = deprecated ? structuredClone(bundler.components.responses[ref.$ref.split('/').pop()]) : ref;
    } else if (typeof response === 'string') {
      out = { description: response, content: { 'application/json': { schema: result } } };
      if (status === '416') out.headers = { 'Content-Range': { description: 'The size of the file, `bytes */{size}`.', schema: { type: 'string' } } };
    } else out = structuredClone(response);
    if (deprecated && !out.$ref) out.headers = { ...out.headers, ...DEPRECATION_HEADERS };
    responses[status] = out;
  }
  const parameters = op.parameters?.map((p) => (p.part2 ? part2('parameters', p.part2) : p));
  return {
    tags: [deprecated ? DEPRECATED_TAG : TAG],
    summary: deprecated ? `${op.summary} (deprecated location)` : op.summary,
    description: deprecated
      ? `${op.description}\n\n**Deprecated**: the same operation as at \`{tenant_url}${FILES_API}\`, still served at this former location; ` +
        'every answer carries `Deprecation` (RFC 9745) and a `Link` to its successor.'
      : op.description,
    operationId: deprecated ? `${op.operationId}_Deprecated` : op.operationId,
    ...(parameters ? { parameters } : {}),
    ...(op.requestBody ? { requestBody: op.requestBody } : {}),
    responses,
    ...(deprecated ? { deprecated: true } : {}),
  };
}

/** Puts the components above into the bundle once; a name the official files use already is a mistake here. */
function addComponents(bundler: Bundler): void {
  for (const [kind, entries] of Object.entries(COMPONENTS)) {
    const section = (bundler.components[kind] ??= {});
    for (const [name, node] of Object.entries(entries)) {
      if (section[name] === node) continue;
      if (Object.hasOwn(section, name)) throw new Error(`The component ${kind}/${name} exists already in the bundle.`);
      section[name] = node;
    }
  }
}
