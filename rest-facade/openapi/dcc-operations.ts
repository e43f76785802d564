import { DCC_BODY_LIMIT, DCC_CONVERSIONS_PATH } from '../dcc';
import { SPHERE_API } from '../tenant-api';
import { Bundler, Json, PART2 } from './bundle';

/**
 * DCC conversion (experimental) at `{tenant_url}/sphere/api/v1.0/dcc/conversions` (rest-facade/dcc.ts, src/dcc/),
 * which no AAS specification describes. The answer's shape repeats the GraphQL type DccConversion.
 */
const TAG = 'DCC Conversion API (experimental)';

const CONVERSION: Json = {
  type: 'object',
  description: 'A DCC converted into a submodel: as it would be stored (preview) or as it was (store).',
  required: ['submodelId', 'schemaVersion', 'uniqueIdentifier', 'submodel', 'warnings', 'specificAssetIds', 'signaturePresent', 'stored', 'referencedFrom', 'assetIdsAdded', 'files'],
  properties: {
    submodelId: { type: 'string', description: 'The submodel\'s id: `submodelId` if given, else `urn:dcc:` and the unique identifier.' },
    schemaVersion: { type: 'string', description: "The DCC's schemaVersion (2.x and 3.x are converted)." },
    uniqueIdentifier: { type: 'string', description: 'administrativeData/coreData/uniqueIdentifier.' },
    submodel: { description: 'The submodel in the AAS JSON serialization (docs/dcc.md has the mapping and its semantic ids).', type: 'object' },
    warnings: { type: 'array', items: { type: 'string' }, description: 'What the conversion left out or could not check, and a mismatch with the named shell.' },
    specificAssetIds: {
      type: 'array',
      description: "The calibrated items' identifications as specific asset ids (name: the issuer), for the instrument's shell and for discovery.",
      items: { type: 'object', required: ['name', 'value'], properties: { name: { type: 'string' }, value: { type: 'string' } } },
    },
    signaturePresent: { type: 'boolean', description: 'Whether the DCC carries an XML signature (ds:Signature). It is not checked.' },
    stored: { type: 'boolean' },
    referencedFrom: { type: ['string', 'null'], description: 'The shell that now references the submodel.' },
    assetIdsAdded: {
      type: 'array',
      description: 'The specific asset ids added to the shell (addAssetIds); in a preview, those that would be.',
      items: { type: 'object', required: ['name', 'value'], properties: { name: { type: 'string' }, value: { type: 'string' } } },
    },
    files: {
      type: 'array',
      description: 'The original DCC (role `original`) and the documents embedded in it (role `document`), each held by a File element.',
      items: {
        type: 'object',
        required: ['role', 'idShortPath', 'fileName', 'contentType', 'size', 'tfp'],
        properties: {
          role: { type: 'string', enum: ['original', 'document'] },
          idShortPath: { type: 'string' },
          fileName: { type: 'string' },
          contentType: { type: 'string' },
          size: { type: 'integer', minimum: 0 },
          tfp: { type: ['string', 'null'], description: 'Its tfp in the file repository; null in a preview.' },
        },
      },
    },
  },
};

/** The operation of `method` `path` (below the tenant URL) if it is the DCC conversion route, else undefined. */
export function dccOperation(bundler: Bundler, method: string, path: string): Json | undefined {
  if (method.toUpperCase() !== 'POST' || path !== `${SPHERE_API}${DCC_CONVERSIONS_PATH}`) return undefined;
  const schemas = (bundler.components.schemas ??= {});
  if (schemas.DccConversion !== undefined && schemas.DccConversion !== CONVERSION) throw new Error('The component schemas/DccConversion exists already in the bundle.');
  schemas.DccConversion = CONVERSION;
  const part2 = (name: string) => bundler.copy({ $ref: `#/components/responses/${name}` }, PART2);
  const result = (description: string) => ({ description, content: { 'application/json': { schema: bundler.copy({ $ref: '#/components/schemas/Result' }, PART2) } } });
  const conversion = { 'application/json': { schema: { $ref: '#/components/schemas/DccConversion' } } };
  return {
    tags: [TAG],
    summary: 'Converts a Digital Calibration Certificate (DCC) into a submodel (experimental)',
    operationId: 'PostDccConversion',
    description:
      "A DCC of PTB's schema (namespace https://ptb.de/dcc, versions 2.x and 3.x, quantities in D-SI) becomes a submodel of the tenant: " +
      'administrative data, statements and every measurement result down to each quantity (names in every language as MultiLanguageProperty, ' +
      'values in their exact lexical form with their unit, expanded uncertainty, coverage factor and probability, D-SI lists and hybrids). ' +
      '`mode=preview` (default; tenant role reader) answers the submodel and the warnings and stores nothing. `mode=store` (contributor) ' +
      'stores the original DCC byte for byte and its embedded documents in the file repository, the submodel with File elements holding ' +
      'their tfps, and, with `shellId`, a reference from that shell: all or nothing. A document that is not XML, has another root, an ' +
      'unknown schema version, breaks the DCC schema, or has a DTD or entities is 400 with the reason, and nothing is stored. The XML ' +
      'signature is recorded, not checked.',
    parameters: [
      { name: 'mode', in: 'query', required: false, description: '`preview` (default) or `store`.', schema: { type: 'string', enum: ['preview', 'store'], default: 'preview' } },
      {
        name: 'shellId',
        in: 'query',
        required: false,
        description: "A shell of the tenant (UTF8-BASE64-URL-encoded id): its asset ids are compared with the calibrated items' identifications (a mismatch is a warning); with mode=store it gets a reference to the submodel.",
        schema: { type: 'string' },
      },
      {
        name: 'addAssetIds',
        in: 'query',
        required: false,
        description: "With shellId: add the calibrated items' identifications the shell lacks to its specific asset ids, so that discovery finds it by them (mode=store; a preview lists them).",
        schema: { type: 'boolean', default: false },
      },
      { name: 'submodelId', in: 'query', required: false, description: 'The id the submodel gets (plain text); default `urn:dcc:{uniqueIdentifier}`.', schema: { type: 'string' } },
    ],
    requestBody: {
      description: `The DCC, at most ${DCC_BODY_LIMIT} bytes: as the body, or in the part \`file\` of a form.`,
      required: true,
      content: {
        'application/xml': { schema: { type: 'string' } },
        'multipart/form-data': { schema: { type: 'object', required: ['file'], additionalProperties: false, properties: { file: { type: 'string', format: 'binary' } } } },
      },
    },
    responses: {
      '200': { description: 'The preview: what would be stored', content: conversion },
      '201': {
        description: 'Stored',
        headers: { Location: { description: 'The URL of the new submodel.', schema: { type: 'string' } } },
        content: conversion,
      },
      '400': part2('bad-request'),
      '401': part2('unauthorized'),
      '403': part2('forbidden'),
      '404': part2('not-found'),
      '409': result('A submodel with that id exists already (the same DCC stored before), or the shell references it already.'),
      '413': result(`The DCC is larger than ${DCC_BODY_LIMIT} bytes.`),
      '415': result('The body is neither XML nor a multipart form.'),
      default: part2('default'),
    },
  };
}
