import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../../src/aas/model/parse';
import { mapDownToV30, mergeV30Write, neededVersion, readFor } from '../../src/aas/versions';

/**
 * Random submodels and shells using each V3.1-only feature (an Entity without entityType, a File or Blob without
 * contentType, a relationship without an end, `Role`, a hyphen in an idShort), written through one version and read
 * through the other, against a small oracle of the mapping rules written here independently of the server's.
 */

type El = JsonObject;

// ---- the oracle: docs/aas-versions.md's rules, as a V3.0 reader sees a V3.1 element ----
const CHILD_KEY: Record<string, string> = { SubmodelElementCollection: 'value', SubmodelElementList: 'value', Entity: 'statements', AnnotatedRelationshipElement: 'annotations' };

function oracleElement(e: El): El | null {
  const type = e.modelType as string;
  if ((type === 'RelationshipElement' || type === 'AnnotatedRelationshipElement') && (!e.first || !e.second)) return null;
  const out: El = { ...e };
  if ((type === 'File' || type === 'Blob') && out.contentType === undefined) out.contentType = 'application/octet-stream';
  if (type === 'Entity' && out.entityType === undefined) out.entityType = out.globalAssetId !== undefined ? 'SelfManagedEntity' : 'CoManagedEntity';
  const key = CHILD_KEY[type];
  if (key && Array.isArray(e[key])) {
    const kept = (e[key] as El[]).map(oracleElement).filter((c): c is El => c !== null);
    if (kept.length) out[key] = kept;
    else delete out[key];
  }
  return out;
}

function oracle(doc: JsonObject): JsonObject {
  if (doc.modelType === 'AssetAdministrationShell') {
    const info = doc.assetInformation as JsonObject;
    return info.assetKind === 'Role' ? { ...doc, assetInformation: { ...info, assetKind: 'NotApplicable' } } : doc;
  }
  const { submodelElements, ...rest } = doc;
  const kept = ((submodelElements ?? []) as El[]).map(oracleElement).filter((c): c is El => c !== null);
  return kept.length ? { ...rest, submodelElements: kept } : rest;
}

// ---- generators ----
const ref = (value: string) => ({ type: 'ExternalReference', keys: [{ type: 'GlobalReference', value }] });
const idShort = fc.stringMatching(/^[A-Z][a-z]{1,6}(-[A-Z][a-z]{1,4})?$/);
const maybe = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: undefined });
const strip = (o: El): El => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));

const leaf: fc.Arbitrary<El> = fc.oneof(
  fc.record({ idShort, value: fc.stringMatching(/^[a-z0-9]{0,8}$/) }).map(({ idShort, value }) => ({ modelType: 'Property', idShort, valueType: 'xs:string', value })),
  fc.record({ idShort, contentType: maybe(fc.constantFrom('application/pdf', 'image/png')), value: maybe(fc.constantFrom('https://example.invalid/a.pdf')) }).map((r) => strip({ modelType: 'File', ...r })),
  fc.record({ idShort, contentType: maybe(fc.constant('application/octet-stream')) }).map((r) => strip({ modelType: 'Blob', ...r })),
  fc.record({ idShort, first: maybe(fc.constant(ref('urn:a'))), second: maybe(fc.constant(ref('urn:b'))) }).map((r) => strip({ modelType: 'RelationshipElement', ...r })),
);

/** Children with unique idShorts (AASd-022). */
const children = (arb: fc.Arbitrary<El>) => fc.uniqueArray(arb, { minLength: 1, maxLength: 4, selector: (e) => e.idShort as string });

const element: fc.Arbitrary<El> = fc.letrec<{ el: El }>((tie) => ({
  el: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    leaf,
    fc.record({ idShort, value: children(tie('el')) }).map((r) => ({ modelType: 'SubmodelElementCollection', ...r })),
    fc
      .record({ idShort, entityType: maybe(fc.constantFrom('CoManagedEntity', 'SelfManagedEntity')), asset: fc.boolean(), statements: maybe(children(tie('el'))) })
      .map(({ asset, ...r }) => strip({ modelType: 'Entity', ...r, ...(asset || r.entityType === 'SelfManagedEntity' ? { globalAssetId: 'urn:x:asset' } : {}) })),
    fc
      .record({ idShort, first: maybe(fc.constant(ref('urn:a'))), annotations: maybe(children(leaf.filter((e) => e.modelType === 'Property'))) })
      .map((r) => strip({ modelType: 'AnnotatedRelationshipElement', ...r, second: ref('urn:b') })),
  ),
})).el;

const submodel = children(element).map((submodelElements) => ({ modelType: 'Submodel', id: 'urn:x:sm', submodelElements }) as JsonObject);
const shell = fc.constantFrom('Role', 'Instance', 'Type', 'NotApplicable').map(
  (assetKind) => ({ modelType: 'AssetAdministrationShell', id: 'urn:x:aas', assetInformation: { assetKind, globalAssetId: 'urn:x:asset' } }) as JsonObject,
);

/** Every element of a document, with the list it is in, depth-first. */
function* walk(list: El[] | undefined): Generator<El> {
  for (const e of list ?? []) {
    yield e;
    const key = CHILD_KEY[e.modelType as string];
    if (key) yield* walk(e[key] as El[] | undefined);
  }
}

const RUNS = { numRuns: 150 };

describe('V3.1 written, V3.0 read, and back: against the oracle of the mapping rules', () => {
  it('written through V3.1 it is stored as written; read through V3.0 it is what the oracle says, and V3.0 can read that', () => {
    fc.assert(
      fc.property(fc.oneof(submodel, shell), (doc) => {
        const stored = readFor('3.1', doc.modelType as 'Submodel', doc).doc;
        expect(stored).toEqual(doc);
        const { json, mapped } = mapDownToV30(stored);
        const expected = JSON.parse(JSON.stringify(oracle(doc))) as JsonObject;
        expect(json).toEqual(expected);
        expect(mapped.length > 0).toBe(JSON.stringify(expected) !== JSON.stringify(doc));
        // What a V3.0 reader gets is V3.0 (the library reads it) and needs no mapping again.
        readFor('3.0', doc.modelType as 'Submodel', json);
        expect(mapDownToV30(json).mapped).toEqual([]);
      }),
      RUNS,
    );
  });

  it('read through V3.0 and written back unchanged through V3.0, the stored V3.1 document is unchanged', () => {
    fc.assert(
      fc.property(fc.oneof(submodel, shell), (doc) => {
        expect(mergeV30Write(doc, structuredClone(mapDownToV30(doc).json))).toEqual(doc);
      }),
      RUNS,
    );
  });

  it('a V3.0 write that changes one Property value changes exactly that in the V3.1 document read back', () => {
    fc.assert(
      fc.property(submodel, fc.nat(), fc.stringMatching(/^[a-z]{1,5}$/), (doc, pick, value) => {
        const view = structuredClone(mapDownToV30(doc).json);
        const properties = [...walk(view.submodelElements as El[])].filter((e) => e.modelType === 'Property');
        fc.pre(properties.length > 0);
        const target = properties[pick % properties.length];
        fc.pre(target.value !== value);
        target.value = value;
        const merged = mergeV30Write(doc, view);
        // The same edit on the V3.1 document: the same Property, found by the same position among the visible ones.
        const expected = structuredClone(doc);
        const visible = [...walk(oracle(expected).submodelElements as El[])].filter((e) => e.modelType === 'Property');
        const index = visible.indexOf(visible[pick % visible.length]);
        const originals = [...walkVisible(expected.submodelElements as El[])].filter((e) => e.modelType === 'Property');
        originals[index].value = value;
        expect(merged).toEqual(expected);
        expect(neededVersion(merged)).toBe(neededVersion(doc));
      }),
      RUNS,
    );
  });
});

/** The elements of a V3.1 document a V3.0 reader sees (not inside one it does not), depth-first: the oracle's order. */
function* walkVisible(list: El[] | undefined): Generator<El> {
  for (const e of list ?? []) {
    if (oracleElement(e) === null) continue;
    yield e;
    const key = CHILD_KEY[e.modelType as string];
    if (key) yield* walkVisible(e[key] as El[] | undefined);
  }
}
