import { describe, expect, it } from 'vitest';
import { verifyReplacement } from '../../src/aas/model/verify-document';

/**
 * A replacement is refused only for violations the stored document did not already have (an import with
 * warnings can be read, changed and written back); what it adds is refused as it always was.
 */

type Json = Record<string, unknown>;

const shell = (extra: Json = {}): Json => ({
  modelType: 'AssetAdministrationShell',
  id: 'urn:replace:shell',
  assetInformation: { assetKind: 'Instance', globalAssetId: 'urn:replace:asset' },
  ...extra,
});

// Stored by a tolerant import: two descriptions in one language.
const twice = [
  { language: 'en', text: 'one' },
  { language: 'en', text: 'two' },
];

const list = (items: Json[], extra: Json = {}): Json => ({
  modelType: 'SubmodelElementList',
  idShort: 'Images',
  typeValueListElement: 'File',
  value: items,
  ...extra,
});
const file = (extra: Json = {}): Json => ({ modelType: 'File', contentType: 'image/png', value: 'a.png', ...extra });
const submodel = (elements: Json[]): Json => ({ modelType: 'Submodel', id: 'urn:replace:submodel', submodelElements: elements });

async function refusal(promise: Promise<unknown>): Promise<string[]> {
  try {
    await promise;
  } catch (err) {
    return (err as { extensions?: { messages?: string[] } }).extensions?.messages ?? [String(err)];
  }
  return [];
}

describe('verifyReplacement', () => {
  it('takes a shell with a stored violation back with a change elsewhere', async () => {
    const stored = shell({ description: twice });
    const next = shell({ description: twice, idShort: 'Renamed' });
    await expect(verifyReplacement('AssetAdministrationShell', next, stored)).resolves.toMatchObject({ idShort: 'Renamed' });
  });

  it('refuses a violation the stored shell did not have', async () => {
    const messages = await refusal(verifyReplacement('AssetAdministrationShell', shell({ displayName: twice }), shell({ description: twice })));
    expect(messages.join('\n')).toMatch(/Display name must specify unique languages/);
  });

  it('refuses a stored document sent back with a new violation beside the old one', async () => {
    const stored = shell({ description: twice });
    const messages = await refusal(verifyReplacement('AssetAdministrationShell', shell({ description: twice, displayName: twice }), stored));
    expect(messages).toHaveLength(1);
  });

  it('counts a list rule per child: a new named child in a list that had one is a new violation (AASd-120)', async () => {
    const stored = submodel([list([file({ idShort: 'Old' })])]);
    await expect(verifyReplacement('Submodel', submodel([list([file({ idShort: 'Old' }), file()])]), stored)).resolves.toBeTruthy();
    const messages = await refusal(verifyReplacement('Submodel', submodel([list([file({ idShort: 'Old' }), file({ idShort: 'New' })])]), stored));
    expect(messages.join('\n')).toMatch(/AASd-120/);
  });

  it("does not count a list's own violation per child (AASd-109: no valueTypeListElement): a conforming child goes in", async () => {
    const property = (value: string): Json => ({ modelType: 'Property', valueType: 'xs:string', value });
    const properties = (items: Json[]) => list(items, { typeValueListElement: 'Property' });
    const stored = submodel([properties([property('a')])]);
    await expect(verifyReplacement('Submodel', submodel([properties([property('a'), property('b')])]), stored)).resolves.toBeTruthy();
  });

  it('refuses a duplicate idShort the stored document did not have, though it had another (AASd-022)', async () => {
    const property = (idShort: string): Json => ({ modelType: 'Property', idShort, valueType: 'xs:string' });
    const stored = submodel([property('A'), property('A')]);
    await expect(verifyReplacement('Submodel', submodel([property('A'), property('A'), property('B')]), stored)).resolves.toBeTruthy();
    const messages = await refusal(verifyReplacement('Submodel', submodel([property('A'), property('A'), property('B'), property('B')]), stored));
    expect(messages.join('\n')).toMatch(/AASd-022/);
  });

  it('refuses what cannot be read, or properties the metamodel does not know, whatever was stored', async () => {
    expect(await refusal(verifyReplacement('AssetAdministrationShell', shell({ colour: 'red' }), shell()))).not.toEqual([]);
    expect(await refusal(verifyReplacement('AssetAdministrationShell', { modelType: 'AssetAdministrationShell' }, shell()))).not.toEqual([]);
  });
});
