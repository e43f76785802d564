import { describe, expect, it } from 'vitest';
import { MAX_MESSAGES } from '../../src/common/result';
import { AppError } from '../../src/graphql/errors';
import { parseShellDescriptor, parseSubmodelDescriptor, shellDescriptorColumns } from '../../src/aas/registry/descriptor';
import { referenceKey, valueKey } from '../../src/aas/model/reference-keys';
import {
  DescriptorKind, InvalidCase, ValidCase, completeDescriptor, handWrittenCases, handWrittenValidCases, loadSchemas, mutateRandomly, randomJson, schemaCases,
  validShellDescriptors, validSubmodelDescriptors,
} from '../support/descriptor-corpus';
import { seededRandom } from '../support/seeded-random';

const PARSERS: Record<DescriptorKind, (json: unknown) => Record<string, unknown>> = {
  shell: parseShellDescriptor,
  submodel: parseSubmodelDescriptor,
};
const KINDS: DescriptorKind[] = ['shell', 'submodel'];

const schemas = loadSchemas();
const generated: Record<DescriptorKind, ValidCase[]> = {
  shell: [...validShellDescriptors(1), ...validShellDescriptors(2)],
  submodel: [...validSubmodelDescriptors(1), ...validSubmodelDescriptors(2)],
};
const fromSchema = { shell: schemaCases(schemas, 'shell'), submodel: schemaCases(schemas, 'submodel') };
const valid = (kind: DescriptorKind) => [...generated[kind], ...fromSchema[kind].valid, ...handWrittenValidCases(kind)];
const invalid = (kind: DescriptorKind): InvalidCase[] => [...fromSchema[kind].invalid, ...handWrittenCases(kind)];

/** The messages of the 400 `parse` throws on `json`; fails on success and on any other exception. */
function rejection(parse: (json: unknown) => unknown, json: unknown): string[] {
  let error: unknown;
  try {
    parse(json);
  } catch (err) {
    error = err;
  }
  expect(error, 'a 400').toBeInstanceOf(AppError);
  expect((error as AppError).extensions.code).toBe('BAD_REQUEST');
  const messages = (error as AppError).extensions.messages as string[];
  expect(messages.length).toBeGreaterThan(0);
  expect(messages.length).toBeLessThanOrEqual(MAX_MESSAGES);
  return messages;
}

/** Whether `message` reports a problem at `path` or under it (`$.a[1]` is not under `$.a[10]`'s path `$.a[1]`). */
const names = (message: string, path: string) => message.startsWith(path) && /^[:.[]/.test(message.slice(path.length));

/** Only success or a BAD_REQUEST AppError: anything else would be a 500. */
function acceptsOrRefuses(parse: (json: unknown) => unknown, json: unknown): void {
  try {
    parse(json);
  } catch (err) {
    if (!(err instanceof AppError) || err.extensions.code !== 'BAD_REQUEST') throw new Error(`not a 400 for ${JSON.stringify(json)?.slice(0, 300)}: ${err}`);
  }
}

describe('the descriptor corpus', () => {
  it('is large enough, and its complete descriptors hold every property the schema defines (the walk checks that)', () => {
    for (const kind of KINDS) {
      expect(valid(kind).length).toBeGreaterThanOrEqual(10);
      expect(invalid(kind).length).toBeGreaterThanOrEqual(40);
    }
    // Every label says what it breaks; no two cases of one kind share one.
    for (const kind of KINDS) expect(new Set(invalid(kind).map((c) => c.label)).size).toBe(invalid(kind).length);
  });

  it('is generated deterministically from its seed', () => {
    expect(validShellDescriptors(3)).toEqual(validShellDescriptors(3));
    expect(validShellDescriptors(3)).not.toEqual(validShellDescriptors(4));
  });
});

describe.each(KINDS)('%s descriptors', (kind) => {
  const parse = PARSERS[kind];

  it.each(valid(kind).map((c) => [c.label, c.doc] as const))('accepts %s', (_label, doc) => {
    const before = structuredClone(doc);
    const parsed = parse(doc);
    expect(parsed).toEqual(before);
    // Returned as given: key order kept, nothing added or dropped, the input untouched.
    expect(JSON.stringify(parsed)).toBe(JSON.stringify(before));
    expect(doc).toEqual(before);
  });

  it.each(invalid(kind).map((c) => [c.label, c] as const))('refuses %s', (_label, { doc, path }) => {
    const messages = rejection(parse, doc);
    expect(messages.some((message) => names(message, path)), `a message naming ${path} in ${JSON.stringify(messages)}`).toBe(true);
  });

  it('reports every problem of one descriptor, one message each, and at most MAX_MESSAGES', () => {
    const doc = { ...completeDescriptor(kind), idShort: '1x', id: '', unexpectedProperty: 1 };
    const messages = rejection(parse, doc);
    expect(messages).toHaveLength(3);
    for (const path of ['$.idShort', '$.id', '$.unexpectedProperty']) expect(messages.some((m) => names(m, path))).toBe(true);

    const endpoints = Array.from({ length: 200 }, () => ({ interface: 7, protocolInformation: {} }));
    const many = rejection(parse, { id: 'urn:x', endpoints });
    expect(many).toHaveLength(MAX_MESSAGES);
    expect(many[MAX_MESSAGES - 1]).toBe(`... and ${400 - (MAX_MESSAGES - 1)} more problems`);
  });

  it('answers random JSON and randomly broken descriptors with a 400 or a descriptor, never another error', () => {
    const rnd = seededRandom(kind === 'shell' ? 11 : 12);
    for (let i = 0; i < 300; i++) acceptsOrRefuses(parse, randomJson(rnd, 5));
    const docs = valid(kind).map((c) => c.doc);
    for (let i = 0; i < 300; i++) acceptsOrRefuses(parse, mutateRandomly(rnd.pick(docs), rnd));
    // And the other parser's documents, which differ in what they require and allow.
    for (const doc of valid(kind === 'shell' ? 'submodel' : 'shell')) acceptsOrRefuses(parse, doc.doc);
  });
});

describe('the Part 2 schema examples', () => {
  const example = (name: string) => JSON.parse(schemas.examples[name]);

  it('accepts the AssetAdministrationShellDescriptor example', () => {
    const doc = example('AssetAdministrationShellDescriptor');
    expect(parseShellDescriptor(doc)).toEqual(doc);
  });

  it('accepts the Descriptor example (the base of both, which has no id) as either descriptor once it has one', () => {
    const doc = { id: 'urn:example:descriptor', ...example('Descriptor') };
    expect(parseShellDescriptor(doc)).toEqual(doc);
    expect(parseSubmodelDescriptor(doc)).toEqual(doc);
  });

  it('refuses the SubmodelDescriptor example, which is malformed in the yaml itself', () => {
    // Its first endpoint reads `"href": { "href": ..., ... }` where `"protocolInformation": { "href": ..., ... }`
    // is meant: the required protocolInformation is missing and `href` is no property of an Endpoint.
    const doc = example('SubmodelDescriptor');
    const messages = rejection(parseSubmodelDescriptor, doc);
    expect(messages.some((m) => names(m, '$.endpoints[0].protocolInformation'))).toBe(true);
    expect(messages.some((m) => names(m, '$.endpoints[0].href'))).toBe(true);
    const endpoints = doc.endpoints as { href?: unknown; protocolInformation?: unknown }[];
    const repaired = { ...doc, endpoints: [{ protocolInformation: endpoints[0].href, interface: 'AAS-3.0' }, ...endpoints.slice(1)] };
    expect(parseSubmodelDescriptor(repaired)).toEqual(repaired);
  });
});

describe('shellDescriptorColumns', () => {
  it('pulls out the filter columns: asset ids with the globalAssetId first, submodel semantic id filter keys once each', () => {
    const doc = parseShellDescriptor({
      id: 'urn:aas:1',
      idShort: 'Motor',
      assetKind: 'Instance',
      assetType: 'urn:type:motor',
      globalAssetId: 'urn:asset:1',
      specificAssetIds: [{ name: 'serialNumber', value: '42', externalSubjectId: { type: 'ExternalReference', keys: [{ type: 'GlobalReference', value: 'urn:c' }] } }],
      submodelDescriptors: [
        { id: 'urn:sm:1', semanticId: { type: 'ExternalReference', keys: [{ type: 'GlobalReference', value: 'urn:nameplate' }] }, endpoints: [{ interface: 'SUBMODEL-3.0', protocolInformation: { href: 'https://x/1' } }] },
        { id: 'urn:sm:2', endpoints: [{ interface: 'SUBMODEL-3.0', protocolInformation: { href: 'https://x/2' } }] },
        { id: 'urn:sm:3', semanticId: { type: 'ModelReference', keys: [{ type: 'Submodel', value: 'urn:a' }, { type: 'Property', value: 'P' }] }, endpoints: [{ interface: 'SUBMODEL-3.0', protocolInformation: { href: 'https://x/3' } }] },
        { id: 'urn:sm:4', semanticId: { type: 'ExternalReference', keys: [{ type: 'GlobalReference', value: 'urn:nameplate' }] }, endpoints: [{ interface: 'SUBMODEL-3.0', protocolInformation: { href: 'https://x/4' } }] },
      ],
    });
    expect(shellDescriptorColumns(doc)).toEqual({
      idShort: 'Motor',
      assetKind: 'Instance',
      assetType: 'urn:type:motor',
      globalAssetId: 'urn:asset:1',
      assetIds: [
        { name: 'globalAssetId', value: 'urn:asset:1' },
        { name: 'serialNumber', value: '42' },
      ],
      // Filter keys, as `submodelSemanticId` compares them: each reference's canonical key and its key values, once.
      submodelSemanticIds: [
        referenceKey({ type: 'ExternalReference', keys: [{ type: 'GlobalReference', value: 'urn:nameplate' }] }),
        valueKey('urn:nameplate'),
        referenceKey({ type: 'ModelReference', keys: [{ type: 'Submodel', value: 'urn:a' }, { type: 'Property', value: 'P' }] }),
        valueKey('urn:a'),
        valueKey('P'),
      ],
    });
  });

  it('gives nulls and empty lists for a descriptor with only an id', () => {
    expect(shellDescriptorColumns(parseShellDescriptor({ id: 'urn:aas:2' }))).toEqual({
      idShort: null, assetKind: null, assetType: null, globalAssetId: null, assetIds: [], submodelSemanticIds: [],
    });
  });
});
