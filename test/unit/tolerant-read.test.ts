import { describe, expect, it } from 'vitest';
import { UnreadableDocument, dropUnreadableParts } from '../../src/aas/model/tolerant-read';
import { parseSubmodel } from '../../src/aas/model/parse';

const ref = (value: string, type = 'GlobalReference') => ({ type: 'ExternalReference', keys: [{ type, value }] });
const property = (idShort: string, extra: Record<string, unknown> = {}) => ({ modelType: 'Property', idShort, valueType: 'xs:string', value: 'v', ...extra });
const submodel = (elements: unknown[], extra: Record<string, unknown> = {}) => ({ modelType: 'Submodel', id: 'urn:sm', submodelElements: elements, ...extra });

describe('dropUnreadableParts', () => {
  it('reads a readable document as it is: nothing dropped, nothing changed', () => {
    const doc = submodel([property('a')], { semanticId: ref('urn:s') });
    const copy = structuredClone(doc);
    expect(dropUnreadableParts('Submodel', doc)).toEqual([]);
    expect(doc).toEqual(copy);
  });

  it('an embedded data specification without its dataSpecification: only it goes, the element stays', () => {
    const content = { modelType: 'DataSpecificationIec61360', preferredName: [{ language: 'en', text: 'x' }] };
    const doc = submodel([property('a'), property('b', { embeddedDataSpecifications: [{ dataSpecificationContent: content }, { dataSpecification: ref('urn:ds'), dataSpecificationContent: content }] })]);
    expect(dropUnreadableParts('Submodel', doc)).toEqual([
      { path: '$.submodelElements[1].embeddedDataSpecifications[0]', what: 'the embedded data specification', why: "The required property 'dataSpecification' is missing" },
    ]);
    const b = (doc.submodelElements[1] as { embeddedDataSpecifications: unknown[] }).embeddedDataSpecifications;
    expect(b).toHaveLength(1);
    expect(() => parseSubmodel(doc, [])).not.toThrow();
  });

  it('broken elements go (positions as sent, however many went before), a list emptied goes, nested too', () => {
    const doc = submodel([
      property('a', { valueType: 'xs:nonsense' }),
      property('b'),
      { modelType: 'Property', idShort: 'c' },
      { modelType: 'SubmodelElementCollection', idShort: 'd', value: [{ modelType: 'Nonsense', idShort: 'x' }] },
      property('e', { extensions: [{ name: 'ok' }, { value: 'no name' }] }),
    ]);
    const dropped = dropUnreadableParts('Submodel', doc);
    expect(dropped.map((d) => `${d.path}: ${d.what}`)).toEqual([
      "$.submodelElements[0]: the Property 'a'",
      "$.submodelElements[2]: the Property 'c'",
      "$.submodelElements[3].value[0]: the Nonsense 'x'",
      '$.submodelElements[4].extensions[1]: the extension',
    ]);
    expect(dropped[0].why).toMatch(/^\.valueType: /);
    expect(dropped[1].why).toBe("The required property 'valueType' is missing");
    expect((doc.submodelElements as { idShort: string }[]).map((e) => e.idShort)).toEqual(['b', 'd', 'e']);
    expect(doc.submodelElements[1]).toEqual({ modelType: 'SubmodelElementCollection', idShort: 'd' });
    expect(() => parseSubmodel(doc, [])).not.toThrow();
  });

  it('a Reference with a bad key goes whole where it is optional; its reason names the key', () => {
    const doc = submodel([property('a', { semanticId: { type: 'ExternalReference', keys: [{ type: 'GlobalReference', value: 'urn:ok' }, { type: 'Nonsense', value: 'x' }] } })]);
    const dropped = dropUnreadableParts('Submodel', doc);
    expect(dropped).toEqual([{ path: '$.submodelElements[0].semanticId', what: 'semanticId', why: expect.stringMatching(/^\.keys\[1\]\.type: /) }]);
    expect(doc.submodelElements[0]).not.toHaveProperty('semanticId');
  });

  it('a required part that cannot be read takes its owner with it: a relationship without a readable first', () => {
    const doc = submodel([{ modelType: 'RelationshipElement', idShort: 'r', first: ref('urn:a', 'Nonsense'), second: ref('urn:b') }, property('p')]);
    const dropped = dropUnreadableParts('Submodel', doc);
    expect(dropped).toHaveLength(1);
    expect(dropped[0]).toMatchObject({ path: '$.submodelElements[0]', what: "the RelationshipElement 'r'", why: expect.stringMatching(/^\.first\.keys\[0\]\.type: /) });
    expect((doc.submodelElements as unknown[]).length).toBe(1);
  });

  it('what the document cannot do without: UnreadableDocument naming it', () => {
    let err: unknown;
    try {
      dropUnreadableParts('Submodel', submodel([property('a')], { id: 5 }));
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(UnreadableDocument);
    expect((err as UnreadableDocument).path).toBe('$');
    expect((err as UnreadableDocument).reason).toMatch(/^\.id: /);
  });

  it('a broken langString of a description goes alone; one of a required list takes the data specification', () => {
    const doc = {
      modelType: 'ConceptDescription',
      id: 'urn:cd',
      description: [{ language: 'en', text: 'ok' }, { language: 'de' }],
      embeddedDataSpecifications: [{ dataSpecification: ref('urn:ds'), dataSpecificationContent: { modelType: 'DataSpecificationIec61360', preferredName: [{ text: 'no language' }] } }],
    };
    const dropped = dropUnreadableParts('ConceptDescription', doc);
    expect(dropped.map((d) => `${d.path}: ${d.what}`)).toEqual([
      "$.description[1]: the description text 'de'",
      '$.embeddedDataSpecifications[0]: the embedded data specification',
    ]);
    expect(dropped[1].why).toBe(".dataSpecificationContent.preferredName[0]: The required property 'language' is missing");
    expect(doc).not.toHaveProperty('embeddedDataSpecifications');
  });
});
