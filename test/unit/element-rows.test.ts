import { describe, expect, it } from 'vitest';
import { assemble, canonicalJson, rowChanges, signaturesOf, splitSubmodel } from '../../src/aas/submodels/element-rows';

const property = (idShort: string, value: string) => ({ modelType: 'Property', idShort, valueType: 'xs:string', value });

describe('element rows', () => {
  const doc = {
    modelType: 'Submodel',
    id: 'urn:x',
    submodelElements: [
      property('P', '1'),
      { modelType: 'SubmodelElementCollection', idShort: 'C', value: [property('Q', 'x'), { modelType: 'SubmodelElementList', idShort: 'L', typeValueListElement: 'Property', value: [{ modelType: 'Property', valueType: 'xs:int', value: '3' }] }] },
      { modelType: 'SubmodelElementCollection', idShort: 'E', value: [] },
      { modelType: 'Entity', idShort: 'En', entityType: 'CoManagedEntity', statements: [property('S', 's')] },
    ],
  };

  it('splits a submodel into its head and depth-first rows with paths', () => {
    const { head, rows } = splitSubmodel(structuredClone(doc));
    expect(head).toEqual({ modelType: 'Submodel', id: 'urn:x' });
    expect(rows.map((r) => [r.ord.join(','), r.path, r.modelType])).toEqual([
      ['0', 'P', 'Property'],
      ['1', 'C', 'SubmodelElementCollection'],
      ['1,0', 'C.Q', 'Property'],
      ['1,1', 'C.L', 'SubmodelElementList'],
      ['1,1,0', 'C.L[0]', 'Property'],
      ['2', 'E', 'SubmodelElementCollection'],
      ['3', 'En', 'Entity'],
      ['3,0', 'En.S', 'Property'],
    ]);
    // An empty child list stays in the element's JSON; a non-empty one becomes rows.
    expect(rows[5].json).toEqual({ modelType: 'SubmodelElementCollection', idShort: 'E', value: [] });
    expect(rows[1].json).toEqual({ modelType: 'SubmodelElementCollection', idShort: 'C' });
    expect(rows[0].value).toBe('1');
    expect(rows[4].idShort).toBeNull();
  });

  it('assembles the document again', () => {
    const { head, rows } = splitSubmodel(structuredClone(doc));
    const parsed = rows.map((r) => ({ depth: r.ord.length, type: r.modelType, json: JSON.parse(JSON.stringify(r.json)) }));
    expect(assemble(JSON.parse(JSON.stringify(head)), parsed)).toEqual(doc);
  });

  it('changes: only rows whose place, path or JSON differ, whatever the order of members', async () => {
    const before = await signaturesOf(splitSubmodel(structuredClone(doc)).rows);
    const same = splitSubmodel(JSON.parse(canonicalJson(doc))).rows;
    expect(await rowChanges(before, same)).toEqual({ remove: [], add: [] });
    const changed = structuredClone(doc) as typeof doc & { submodelElements: Record<string, unknown>[] };
    ((changed.submodelElements[1].value as Record<string, unknown>[])[0] as Record<string, unknown>).value = 'y';
    changed.submodelElements.splice(2, 1);
    const { remove, add } = await rowChanges(before, splitSubmodel(changed).rows);
    expect(add.map((r) => r.path)).toEqual(['C.Q', 'En', 'En.S']);
    expect(remove).toEqual([[1, 0], [2], [3], [3, 0]]);
  });
});
