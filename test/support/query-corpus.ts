import type { QueryTarget } from '../../src/aas/query/ast';
import { Json, collection, cond, f, list, mlp, modelRef, n, op, prop, ref, s } from './query-json';

/**
 * The query corpus: a small, fixed data set and queries in the JSON form of the AAS Query Language
 * (IDTA-01002-3, "Query Language"), each with the ids it must answer, written by hand from the data below and
 * the specification's rules (not by running the code). test/integration/query-corpus.test.ts runs them.
 *
 * Reading aid for the expectations:
 * - A field yields the atomic values it addresses; a comparison holds when it holds for some value ("[] ...
 *   at least one element has to fulfill the comparison"). Absent fields yield nothing: the comparison is not
 *   true, and `$not` of it is not true either (the translation's three-valued choice, see src/aas/query/sql.ts).
 * - "If the second parameter is a constant ... the value of the FieldIdentifier will be implicitly casted to
 *   the corresponding data type"; a value that does not cast, or two operands of different types, is a
 *   comparison error: "no result will be returned" for the object, under `$not` too.
 * - Strings compare character-wise (code points): "beta" > "Delta", "11" < "2".
 */

export const S = (n: string) => `urn:c:shell:${n}`;
export const SM = (n: string) => `urn:c:sm:${n}`;
export const CD = (n: string) => `urn:c:cd:${n}`;
export const WIDTH = '0173-1#02-BAF016#006';

// --- the data set -------------------------------------------------------------------------------------------

interface ShellSpec {
  idShort?: string;
  assetKind: string;
  assetType?: string;
  /** [name, value, externalSubjectId?] */
  ids?: [string, string, string?][];
  submodels?: string[];
}

function shell(n: string, spec: ShellSpec, more: Json = {}): Json {
  return {
    modelType: 'AssetAdministrationShell',
    id: S(n),
    ...(spec.idShort ? { idShort: spec.idShort } : {}),
    assetInformation: {
      assetKind: spec.assetKind,
      globalAssetId: `urn:asset:${n}`,
      ...(spec.assetType ? { assetType: spec.assetType } : {}),
      ...(spec.ids
        ? { specificAssetIds: spec.ids.map(([name, value, subject]) => ({ name, value, ...(subject ? { externalSubjectId: ref(subject) } : {}) })) }
        : {}),
    },
    ...(spec.submodels ? { submodels: spec.submodels.map((id) => modelRef('Submodel', SM(id))) } : {}),
    ...more,
  };
}

/**
 * Shells:
 *   a1 Alpha    Instance       Robot  [serial S-100 (acme), batch B7]    -> td1, doc1   (with description, displayName)
 *   a2 beta     Type           Robot  [serial B7, batch S-100 (other)]   -> td2
 *   a3 Gamma_3  Instance       -      -                                  -> td3
 *   a4 (none)   Instance       -      -                                  -
 *   a5 Delta    NotApplicable  Pump   [serial S-200]                     -> np1
 */
export const SHELLS: Json[] = [
  shell(
    'a1',
    { idShort: 'Alpha', assetKind: 'Instance', assetType: 'Robot', ids: [['serial', 'S-100', 'urn:company:acme'], ['batch', 'B7']], submodels: ['td1', 'doc1'] },
    { description: [{ language: 'en', text: 'Robot arm' }], displayName: [{ language: 'de', text: 'Roboterarm' }] },
  ),
  shell('a2', { idShort: 'beta', assetKind: 'Type', assetType: 'Robot', ids: [['serial', 'B7'], ['batch', 'S-100', 'urn:company:other']], submodels: ['td2'] }),
  shell('a3', { idShort: 'Gamma_3', assetKind: 'Instance', submodels: ['td3'] }),
  shell('a4', { assetKind: 'Instance' }),
  shell('a5', { idShort: 'Delta', assetKind: 'NotApplicable', assetType: 'Pump', ids: [['serial', 'S-200']], submodels: ['np1'] }),
];

interface TechnicalSpec {
  semanticKeys: string[];
  /** [ProductClassId, ClassificationSystem, ClassificationSystemVersion?] */
  classifications: [string, string, string?][];
  /** [idShort, value, valueType] */
  properties: [string, string, string][];
  names?: [string, string][];
}

function technicalData(n: string, spec: TechnicalSpec): Json {
  const classification = ([id, system, version]: [string, string, string?]) =>
    collection(undefined, [prop('ProductClassId', id), prop('ClassificationSystem', system), ...(version ? [prop('ClassificationSystemVersion', version)] : [])]);
  return {
    modelType: 'Submodel',
    id: SM(n),
    idShort: 'TechnicalData',
    semanticId: ref(...spec.semanticKeys),
    submodelElements: [
      ...(spec.classifications.length ? [list('ProductClassifications', 'SubmodelElementCollection', spec.classifications.map(classification))] : []),
      collection(
        'TechnicalProperties',
        spec.properties.map(([idShort, value, valueType]) => prop(idShort, value, valueType, idShort === 'Width' ? ref(WIDTH) : undefined)),
      ),
      ...(spec.names ? [mlp('Names', spec.names)] : []),
    ],
  };
}

/** One VDI 2770 document: its class, and the languages of its version (one MultiLanguageProperty each). */
function document(classId: string, languages: string[], classSemanticId?: Json): Json {
  return collection(undefined, [
    collection('DocumentClassification', [prop('Class', classId, 'xs:string', classSemanticId)]),
    collection('DocumentVersion', [list('SMLLanguages', 'MultiLanguageProperty', languages.map((l) => mlp(undefined, [[l, `text ${l}`]])))]),
  ]);
}

function handover(n: string, documents: Json[]): Json {
  return {
    modelType: 'Submodel',
    id: SM(n),
    idShort: 'HandoverDocumentation',
    semanticId: ref('urn:sem:hd'),
    submodelElements: [list('Documents', 'SubmodelElementCollection', documents)],
  };
}

/**
 * Submodels (TechnicalProperties values: Width, Weight, Voltage, Released, Shift, Active, Mask, Label):
 *   td1 TechnicalData  semanticId [urn:sem:td, urn:sem:td:v2]
 *       ProductClassifications [27-37-09-05 ECLASS 13.0, 11-22 IEC CDD]
 *       80 xs:double, 12.5, 230 xs:int, 2024-05-17T08:15:00Z (a Friday), 06:30:00, true, 1F, "Ab_c%"
 *       Names [en Motor starter, de Motorstarter]
 *   td2 TechnicalData  semanticId [urn:sem:td]
 *       ProductClassifications [27-37-09-05 IEC CDD, 11-22 ECLASS]
 *       120, -3.25, 400, 2023-12-31T23:30:00-01:00 (= 2024-01-01T00:30:00Z), 22:00:00, false, ff00, "plain"
 *       Names [fr Démarreur]
 *   td3 TechnicalData  semanticId [urn:sem:other, urn:sem:td]; no classifications
 *       values that do not cast: Width "wide", Released "yesterday", Active "maybe", Mask "XYZ" (all xs:string)
 *   doc1 HandoverDocumentation [urn:sem:hd]: Documents [03-01 (Class has a ModelReference semanticId) in en, de;
 *                                                      02-01 in nl]
 *   doc2 HandoverDocumentation [urn:sem:hd]: Documents [03-01 in nl]
 *   np1 Nameplate  semanticId ModelReference [ConceptDescription urn:c:cd:np]
 *       ManufacturerName ACME, SerialNumber S-100, Markings [CE: Codes [A1, B2], UKCA: Codes [C3]]
 */
export const SUBMODELS: Json[] = [
  technicalData('td1', {
    semanticKeys: ['urn:sem:td', 'urn:sem:td:v2'],
    classifications: [
      ['27-37-09-05', 'ECLASS', '13.0'],
      ['11-22', 'IEC CDD'],
    ],
    properties: [
      ['Width', '80', 'xs:double'],
      ['Weight', '12.5', 'xs:decimal'],
      ['Voltage', '230', 'xs:int'],
      ['Released', '2024-05-17T08:15:00Z', 'xs:dateTime'],
      ['Shift', '06:30:00', 'xs:time'],
      ['Active', 'true', 'xs:boolean'],
      ['Mask', '1F', 'xs:hexBinary'],
      ['Label', 'Ab_c%', 'xs:string'],
    ],
    names: [
      ['en', 'Motor starter'],
      ['de', 'Motorstarter'],
    ],
  }),
  technicalData('td2', {
    semanticKeys: ['urn:sem:td'],
    classifications: [
      ['27-37-09-05', 'IEC CDD'],
      ['11-22', 'ECLASS'],
    ],
    properties: [
      ['Width', '120', 'xs:double'],
      ['Weight', '-3.25', 'xs:decimal'],
      ['Voltage', '400', 'xs:int'],
      ['Released', '2023-12-31T23:30:00-01:00', 'xs:dateTime'],
      ['Shift', '22:00:00', 'xs:time'],
      ['Active', 'false', 'xs:boolean'],
      ['Mask', 'ff00', 'xs:hexBinary'],
      ['Label', 'plain', 'xs:string'],
    ],
    names: [['fr', 'Démarreur']],
  }),
  technicalData('td3', {
    semanticKeys: ['urn:sem:other', 'urn:sem:td'],
    classifications: [],
    properties: [
      ['Width', 'wide', 'xs:string'],
      ['Released', 'yesterday', 'xs:string'],
      ['Active', 'maybe', 'xs:string'],
      ['Mask', 'XYZ', 'xs:string'],
    ],
  }),
  handover('doc1', [document('03-01', ['en', 'de'], modelRef('ConceptDescription', CD('class'))), document('02-01', ['nl'])]),
  handover('doc2', [document('03-01', ['nl'])]),
  {
    modelType: 'Submodel',
    id: SM('np1'),
    idShort: 'Nameplate',
    semanticId: modelRef('ConceptDescription', CD('np')),
    submodelElements: [
      prop('ManufacturerName', 'ACME'),
      prop('SerialNumber', 'S-100'),
      list('Markings', 'SubmodelElementCollection', [
        collection(undefined, [prop('MarkingName', 'CE'), list('Codes', 'Property', [prop(undefined, 'A1'), prop(undefined, 'B2')], 'xs:string')]),
        collection(undefined, [prop('MarkingName', 'UKCA'), list('Codes', 'Property', [prop(undefined, 'C3')], 'xs:string')]),
      ]),
    ],
  },
];

/** Concept descriptions: cd1 Width, cd2 MaxVoltage, cd3 width_alt, cd4 without idShort. */
export const CONCEPT_DESCRIPTIONS: Json[] = [
  { modelType: 'ConceptDescription', id: CD('cd1'), idShort: 'Width' },
  { modelType: 'ConceptDescription', id: CD('cd2'), idShort: 'MaxVoltage' },
  { modelType: 'ConceptDescription', id: CD('cd3'), idShort: 'width_alt' },
  { modelType: 'ConceptDescription', id: CD('cd4') },
];

export const ALL_SHELLS = SHELLS.map((x) => x.id as string);
export const ALL_SUBMODELS = SUBMODELS.map((x) => x.id as string);
export const ALL_CDS = CONCEPT_DESCRIPTIONS.map((x) => x.id as string);

// --- the queries --------------------------------------------------------------------------------------------

export interface CorpusCase {
  name: string;
  target: QueryTarget;
  query: unknown;
  expected: string[];
  /**
   * Set where the implementation answers otherwise today: the specification's sentence the expectation follows
   * (or the bug). The test is then `it.fails`; it starts failing, i.e. must become `it`, once the implementation
   * agrees.
   */
  knownFailure?: string;
}

const c = (name: string, target: QueryTarget, query: unknown, expected: string[], knownFailure?: string): CorpusCase => ({
  name,
  target,
  query,
  expected,
  ...(knownFailure ? { knownFailure } : {}),
});

const sid = (attribute: string) => `$aas#assetInformation.specificAssetIds[].${attribute}`;
const tp = (idShort: string) => `$sme.TechnicalProperties.${idShort}#value`;
const pc = (idShort: string) => `$sme.ProductClassifications[].${idShort}#value`;
const marking = '$sme.Markings[].MarkingName#value';
const codes = '$sme.Markings[].Codes[]#value';
const docClass = '$sme.Documents[].DocumentClassification.Class#value';
const docLanguage = '$sme.Documents[].DocumentVersion.SMLLanguages[]#language';
const [TD1, TD2, TD3, DOC1, DOC2, NP1] = ['td1', 'td2', 'td3', 'doc1', 'doc2', 'np1'].map(SM);
const [A1, A2, A3, A4, A5] = ['a1', 'a2', 'a3', 'a4', 'a5'].map(S);
const [CD1, CD2, CD3, CD4] = ['cd1', 'cd2', 'cd3', 'cd4'].map(CD);
const eq = (a: unknown, b: unknown) => ({ $eq: [a, b] });

/** The corpus, by what it covers. */
export const CORPUS: Record<string, CorpusCase[]> = {
  '$aas: every operator': [
    c('$eq idShort', 'shells', op('$eq', f('$aas#idShort'), s('beta')), [A2]),
    c('$ne assetKind (a shell is compared by its own value only)', 'shells', op('$ne', f('$aas#assetInformation.assetKind'), s('Instance')), [A2, A5]),
    c('$gt idShort by code point ("beta" > "Delta")', 'shells', op('$gt', f('$aas#idShort'), s('Delta')), [A2, A3]),
    c('$ge idShort', 'shells', op('$ge', f('$aas#idShort'), s('Delta')), [A2, A3, A5]),
    c('$lt idShort', 'shells', op('$lt', f('$aas#idShort'), s('Delta')), [A1]),
    c('$le idShort', 'shells', op('$le', f('$aas#idShort'), s('Delta')), [A1, A5]),
    c('$contains is case-sensitive', 'shells', op('$contains', f('$aas#idShort'), s('et')), [A2]),
    c('$contains with no match in another case', 'shells', op('$contains', f('$aas#idShort'), s('ET')), []),
    c('$starts-with assetType', 'shells', op('$starts-with', f('$aas#assetInformation.assetType'), s('Rob')), [A1, A2]),
    c('$ends-with id', 'shells', op('$ends-with', f('$aas#id'), s(':a5')), [A5]),
    c('$regex on globalAssetId', 'shells', op('$regex', f('$aas#assetInformation.globalAssetId'), s('^urn:asset:a[13]$')), [A1, A3]),
    c('$regex is case-sensitive', 'shells', op('$regex', f('$aas#idShort'), s('^[a-z]')), [A2]),
    c('$contains on id (the spec comparison example)', 'shells', op('$contains', f('$aas#id'), s('urn:c:shell:a')), ALL_SHELLS),
  ],
  '$aas: specificAssetIds and submodel references': [
    c('externalSubjectId shortcut is its first key value', 'shells', op('$eq', f(sid('externalSubjectId')), s('urn:company:acme')), [A1]),
    c('externalSubjectId.keys[].type', 'shells', op('$eq', f(sid('externalSubjectId.keys[].type')), s('GlobalReference')), [A1, A2]),
    c('specificAssetIds[0].externalSubjectId.type', 'shells', op('$eq', f('$aas#assetInformation.specificAssetIds[0].externalSubjectId.type'), s('ExternalReference')), [A1]),
    c('specificAssetIds[1].name', 'shells', op('$eq', f('$aas#assetInformation.specificAssetIds[1].name'), s('batch')), [A1, A2]),
    c(
      'specificAssetIds[0].externalSubjectId.keys[0].value',
      'shells',
      op('$starts-with', f('$aas#assetInformation.specificAssetIds[0].externalSubjectId.keys[0].value'), s('urn:company:')),
      [A1],
    ),
    c('$match: serial S-100 in the same specificAssetId', 'shells', cond({ $match: [eq(f(sid('name')), s('serial')), eq(f(sid('value')), s('S-100'))] }), [A1]),
    c('$and: serial and S-100 in any specificAssetIds', 'shells', cond({ $and: [eq(f(sid('name')), s('serial')), eq(f(sid('value')), s('S-100'))] }), [A1, A2]),
    c(
      '$match: name and externalSubjectId of the same specificAssetId',
      'shells',
      cond({ $match: [eq(f(sid('name')), s('batch')), { '$starts-with': [f(sid('externalSubjectId')), s('urn:company:')] }] }),
      [A2],
    ),
    c('submodels[].keys[].value', 'shells', op('$eq', f('$aas#submodels[].keys[].value'), s(DOC1)), [A1]),
    c('submodels[0].keys[0].value', 'shells', op('$starts-with', f('$aas#submodels[0].keys[0].value'), s(SM('td'))), [A1, A2, A3]),
    c('submodels[1].keys[0].value', 'shells', op('$ends-with', f('$aas#submodels[1].keys[0].value'), s('doc1')), [A1]),
    c('submodels[].type', 'shells', op('$eq', f('$aas#submodels[].type'), s('ModelReference')), [A1, A2, A3, A5]),
    c('submodels[].keys[].type: no other key type', 'shells', op('$ne', f('$aas#submodels[].keys[].type'), s('Submodel')), []),
    c('$ne holds when some value differs', 'shells', op('$ne', f('$aas#submodels[].keys[].value'), s(TD1)), [A1, A2, A3, A5]),
  ],
  '$aas: spec comparison table, literals, $not, $boolean, $select': [
    c('field $eq the same field', 'shells', op('$eq', f('$aas#assetInformation.assetKind'), f('$aas#assetInformation.assetKind')), ALL_SHELLS),
    c('field $ne the same field', 'shells', op('$ne', f('$aas#assetInformation.assetKind'), f('$aas#assetInformation.assetKind')), []),
    c('"11" $gt "2" is false (character-wise)', 'shells', op('$gt', s('11'), s('2')), []),
    c('1 $le 2', 'shells', op('$le', n(1), n(2)), ALL_SHELLS),
    c('"a" $lt "b" with a field', 'shells', cond({ $and: [{ $lt: [s('a'), s('b')] }, eq(f('$aas#idShort'), s('Alpha'))] }), [A1]),
    c('bool("true") $ge bool("true")', 'shells', op('$ge', { $boolCast: s('true') }, { $boolCast: s('true') }), ALL_SHELLS),
    c('bool("true") $gt bool("true") is false', 'shells', op('$gt', { $boolCast: s('true') }, { $boolCast: s('true') }), []),
    // The spec's table says `assetKind $ne 17` is true ("17 is implicitly casted to the string"), its casting
    // section that the field is cast to the constant's type (number): "Instance" does not cast, no result.
    // The translation follows the casting section.
    c('field $ne number: the field is cast to a number, which fails', 'shells', op('$ne', f('$aas#assetInformation.assetKind'), n(17)), []),
    c('$not over an absent field: shells without assetType are not returned', 'shells', cond({ $not: { '$starts-with': [f('$aas#assetInformation.assetType'), s('Rob')] } }), [A5]),
    c('$not($not(...))', 'shells', cond({ $not: { $not: eq(f('$aas#idShort'), s('Alpha')) } }), [A1]),
    c(
      '$not($or(...)) with an absent idShort: unknown stays unknown',
      'shells',
      cond({ $not: { $or: [eq(f('$aas#idShort'), s('Alpha')), eq(f('$aas#assetInformation.assetKind'), s('Type'))] } }),
      [A3, A5],
    ),
    c('$or: unknown OR true is true', 'shells', cond({ $or: [{ $not: eq(f('$aas#idShort'), s('x')) }, eq(f('$aas#assetInformation.assetKind'), s('Instance'))] }), ALL_SHELLS),
    c('$not over a list field', 'shells', cond({ $not: eq(f('$aas#submodels[].keys[].value'), s(TD1)) }), [A2, A3, A5]),
    c('$boolean false', 'shells', cond({ $boolean: false }), []),
    c('$select id', 'shells', { $select: 'id', $condition: eq(f('$aas#idShort'), s('beta')) }, [A2]),
    c(
      'both fields absent are equal (spec comparison table)',
      'shells',
      op('$eq', f('$aas#idShort'), f('$aas#assetInformation.assetType')),
      [A4],
      'IDTA-01002-3 "Comparison Operators", example table: `$aas#idShort $eq $aas#assetInformation.assetType` -> true, "Both items are empty, therefore, they are equal." (a4 has neither)',
    ),
  ],
  '$sm: every operator and semanticId': [
    c('$eq semanticId.keys[0].value', 'submodels', op('$eq', f('$sm#semanticId.keys[0].value'), s('urn:sem:td')), [TD1, TD2]),
    c('$ne idShort', 'submodels', op('$ne', f('$sm#idShort'), s('TechnicalData')), [DOC1, DOC2, NP1]),
    c('$gt idShort', 'submodels', op('$gt', f('$sm#idShort'), s('Nameplate')), [TD1, TD2, TD3]),
    c('$ge idShort', 'submodels', op('$ge', f('$sm#idShort'), s('Nameplate')), [TD1, TD2, TD3, NP1]),
    c('$lt idShort', 'submodels', op('$lt', f('$sm#idShort'), s('Nameplate')), [DOC1, DOC2]),
    c('$le idShort', 'submodels', op('$le', f('$sm#idShort'), s('Nameplate')), [DOC1, DOC2, NP1]),
    c('$contains idShort', 'submodels', op('$contains', f('$sm#idShort'), s('Data')), [TD1, TD2, TD3]),
    c('$starts-with on the semanticId shortcut (first key only)', 'submodels', op('$starts-with', f('$sm#semanticId'), s('urn:sem:td')), [TD1, TD2]),
    c('$ends-with on any key', 'submodels', op('$ends-with', f('$sm#semanticId.keys[].value'), s(':v2')), [TD1]),
    c('$regex on id', 'submodels', op('$regex', f('$sm#id'), s('doc[0-9]$')), [DOC1, DOC2]),
    c('semanticId.keys[1].value', 'submodels', op('$eq', f('$sm#semanticId.keys[1].value'), s('urn:sem:td')), [TD3]),
    c('semanticId.type', 'submodels', op('$eq', f('$sm#semanticId.type'), s('ModelReference')), [NP1]),
    c('semanticId.keys[].type', 'submodels', op('$eq', f('$sm#semanticId.keys[].type'), s('ConceptDescription')), [NP1]),
    c('$ne on any key: some key differs', 'submodels', op('$ne', f('$sm#semanticId.keys[].value'), s('urn:sem:td')), [TD1, TD3, DOC1, DOC2, NP1]),
    c('$sm and $sme under $and', 'submodels', cond({ $and: [eq(f('$sm#idShort'), s('HandoverDocumentation')), eq(f('$sme#value'), s('02-01'))] }), [DOC1]),
  ],
  '$sme: every operator, value, valueType, language, semanticId': [
    c('$eq number', 'submodels', op('$eq', f(tp('Voltage')), n(230)), [TD1]),
    c('$ne number', 'submodels', op('$ne', f(tp('Voltage')), n(230)), [TD2]),
    c('$gt number', 'submodels', op('$gt', f(tp('Voltage')), n(230)), [TD2]),
    c('$ge number', 'submodels', op('$ge', f(tp('Voltage')), n(230)), [TD1, TD2]),
    c('$lt negative decimal', 'submodels', op('$lt', f(tp('Weight')), n(0)), [TD2]),
    c('$le number; "wide" does not cast', 'submodels', op('$le', f(tp('Width')), n(100)), [TD1]),
    c('$contains on any element value', 'submodels', op('$contains', f('$sme#value'), s('ai')), [TD2]),
    c('$starts-with escapes _', 'submodels', op('$starts-with', f(tp('Label')), s('Ab_')), [TD1]),
    c('$ends-with escapes %', 'submodels', op('$ends-with', f('$sme#value'), s('%')), [TD1]),
    c('$regex on any element value', 'submodels', op('$regex', f('$sme#value'), s('^[0-9]{2}-[0-9]{2}$')), [TD1, TD2, DOC1, DOC2]),
    c('$contains with a $strCast pattern', 'submodels', op('$contains', f(tp('Voltage')), { $strCast: n(23) }), [TD1]),
    c('valueType anywhere', 'submodels', op('$eq', f('$sme#valueType'), s('xs:int')), [TD1, TD2]),
    c('valueType at a path', 'submodels', op('$eq', f('$sme.TechnicalProperties.Width#valueType'), s('xs:string')), [TD3]),
    c('idShort anywhere', 'submodels', op('$eq', f('$sme#idShort'), s('Markings')), [NP1]),
    c('idShort at a path', 'submodels', op('$eq', f('$sme.TechnicalProperties#idShort'), s('TechnicalProperties')), [TD1, TD2, TD3]),
    c('semanticId shortcut at a path', 'submodels', op('$eq', f('$sme.TechnicalProperties.Width#semanticId'), s(WIDTH)), [TD1, TD2, TD3]),
    c('semanticId.keys[0].type at a path', 'submodels', op('$eq', f('$sme.TechnicalProperties.Width#semanticId.keys[0].type'), s('GlobalReference')), [TD1, TD2, TD3]),
    c('semanticId.type anywhere', 'submodels', op('$eq', f('$sme#semanticId.type'), s('ModelReference')), [DOC1]),
    c('semanticId.keys[].value anywhere', 'submodels', op('$eq', f('$sme#semanticId.keys[].value'), s(CD('class'))), [DOC1]),
    c('language at a path', 'submodels', op('$eq', f('$sme.Names#language'), s('fr')), [TD2]),
    c('language anywhere, $regex', 'submodels', op('$regex', f('$sme#language'), s('^(de|fr)$')), [TD1, TD2, DOC1]),
    c('$not over a value that does not cast: no result', 'submodels', cond({ $not: { $le: [f(tp('Width')), n(100)] } }), [TD2]),
  ],
  '$sme: idShortPaths, fixed indexes, [] and nested lists': [
    c('fixed index in a path', 'submodels', op('$eq', f('$sme.Documents[1].DocumentClassification.Class#value'), s('02-01')), [DOC1]),
    c('two fixed indexes', 'submodels', op('$eq', f('$sme.Documents[0].DocumentVersion.SMLLanguages[1]#language'), s('de')), [DOC1]),
    c('fixed then any', 'submodels', op('$eq', f('$sme.Documents[0].DocumentVersion.SMLLanguages[]#language'), s('nl')), [DOC2]),
    c('list index [0] of ProductClassifications', 'submodels', op('$eq', f('$sme.ProductClassifications[0].ClassificationSystem#value'), s('IEC CDD')), [TD2]),
    c('nested lists, any and any', 'submodels', op('$eq', f(codes), s('C3')), [NP1]),
    c('nested lists, [0] then any', 'submodels', op('$eq', f('$sme.Markings[0].Codes[]#value'), s('C3')), []),
    c('nested lists, [1][0]', 'submodels', op('$eq', f('$sme.Markings[1].Codes[0]#value'), s('C3')), [NP1]),
    c('an index past the end', 'submodels', op('$eq', f('$sme.Markings[7].MarkingName#value'), s('CE')), []),
  ],
  '$match versus $and': [
    c(
      'spec Documents example: $match binds one document',
      'submodels',
      cond({ $match: [eq(f(docClass), s('03-01')), eq(f(docLanguage), s('nl'))] }),
      [DOC2],
    ),
    c('spec Documents example under $and', 'submodels', cond({ $and: [eq(f(docClass), s('03-01')), eq(f(docLanguage), s('nl'))] }), [DOC1, DOC2]),
    c(
      '$match: one ProductClassification 11-22 of IEC CDD',
      'submodels',
      cond({ $match: [eq(f(pc('ProductClassId')), s('11-22')), eq(f(pc('ClassificationSystem')), s('IEC CDD'))] }),
      [TD1],
    ),
    c('$and: 11-22 and IEC CDD anywhere', 'submodels', cond({ $and: [eq(f(pc('ProductClassId')), s('11-22')), eq(f(pc('ClassificationSystem')), s('IEC CDD'))] }), [TD1, TD2]),
    c(
      '$match with a member only one classification has',
      'submodels',
      cond({ $match: [eq(f(pc('ClassificationSystemVersion')), s('13.0')), eq(f(pc('ProductClassId')), s('27-37-09-05'))] }),
      [TD1],
    ),
    c(
      'spec motor starter example: $and of two $match',
      'submodels',
      cond({
        $and: [
          { $match: [eq(f('$sm#idShort'), s('TechnicalData')), eq(f(pc('ProductClassId')), s('27-37-09-05'))] },
          { $match: [eq(f('$sm#idShort'), s('TechnicalData')), eq(f('$sme#semanticId'), s(WIDTH)), { $lt: [f('$sme#value'), n(100)] }] },
        ],
      }),
      [TD1],
    ),
    c('nested lists: $match binds the marking', 'submodels', cond({ $match: [eq(f(marking), s('CE')), eq(f(codes), s('C3'))] }), []),
    c('nested lists: $and does not', 'submodels', cond({ $and: [eq(f(marking), s('CE')), eq(f(codes), s('C3'))] }), [NP1]),
    c('nested lists: $match, a code of that marking', 'submodels', cond({ $match: [eq(f(marking), s('CE')), eq(f(codes), s('B2'))] }), [NP1]),
    c('nested lists: $match binds the code too', 'submodels', cond({ $match: [eq(f(codes), s('A1')), eq(f(codes), s('B2'))] }), []),
    c(
      '$match in $match: the inner one restricts the inner list',
      'submodels',
      cond({ $match: [eq(f(marking), s('UKCA')), { $match: [{ '$starts-with': [f(codes), s('C')] }, { '$ends-with': [f(codes), s('3')] }] }] }),
      [NP1],
    ),
    c(
      '$match in $match: no code is both A1 and B2',
      'submodels',
      cond({ $match: [eq(f(marking), s('CE')), { $match: [eq(f(codes), s('A1')), eq(f(codes), s('B2'))] }] }),
      [],
    ),
  ],
  'casts, date and time parts': [
    c('$strCast of a number literal against a field', 'submodels', op('$eq', { $strCast: n(230) }, f(tp('Voltage'))), [TD1]),
    c('$numCast of a field and of a string', 'submodels', op('$gt', { $numCast: f(tp('Weight')) }, { $numCast: s('-5') }), [TD1, TD2]),
    c('$numCast of a boolean is 1', 'conceptDescriptions', op('$eq', { $numCast: { $boolean: true } }, n(1)), ALL_CDS),
    c('$hexCast of a field', 'submodels', op('$eq', { $hexCast: f(tp('Mask')) }, { $hexVal: '16#1F' }), [TD1]),
    c('$hexCast of a number; lower-case field value', 'submodels', op('$gt', f(tp('Mask')), { $hexCast: n(255) }), [TD2]),
    c('hex with leading zeros', 'submodels', op('$le', f(tp('Mask')), { $hexVal: '16#001F' }), [TD1]),
    c('$boolCast of a field', 'submodels', op('$eq', { $boolCast: f(tp('Active')) }, { $boolean: true }), [TD1]),
    c('$boolCast of a number', 'submodels', op('$eq', f(tp('Active')), { $boolCast: n(0) }), [TD2]),
    c('boolean $ne', 'submodels', op('$ne', f(tp('Active')), { $boolean: true }), [TD2]),
    c('dateTime with an offset, implicit cast', 'submodels', op('$ge', f(tp('Released')), { $dateTimeVal: '2024-01-01T00:30:00Z' }), [TD1, TD2]),
    c('dateTime $gt', 'submodels', op('$gt', f(tp('Released')), { $dateTimeVal: '2024-01-01T00:30:00Z' }), [TD1]),
    c('$dateTimeCast: the same instant in another zone', 'submodels', op('$eq', { $dateTimeCast: f(tp('Released')) }, { $dateTimeVal: '2024-01-01T01:30:00+01:00' }), [TD2]),
    c('$timeCast of a field', 'submodels', op('$lt', { $timeCast: f(tp('Shift')) }, { $timeVal: '12:00' }), [TD1]),
    c('$timeCast of a dateTime', 'submodels', op('$gt', f(tp('Shift')), { $timeCast: { $dateTimeVal: '2024-01-01T21:00:00Z' } }), [TD2]),
    c('time $ge', 'submodels', op('$ge', f(tp('Shift')), { $timeVal: '06:30:00' }), [TD1, TD2]),
    // The spec does not number the days of the week; the translation counts from Sunday = 0.
    c('$dayOfWeek (2024-05-17 is a Friday)', 'conceptDescriptions', op('$eq', { $dayOfWeek: '2024-05-17T08:15:00Z' }, n(5)), ALL_CDS),
    c('$dayOfMonth', 'conceptDescriptions', cond({ $and: [eq({ $dayOfMonth: '2024-02-29T12:00:00Z' }, n(29)), eq(f('$cd#idShort'), s('Width'))] }), [CD1]),
    c('$month', 'conceptDescriptions', op('$eq', { $month: '2024-02-29T12:00:00Z' }, n(2)), ALL_CDS),
    c('$month, another month', 'conceptDescriptions', op('$eq', { $month: '2024-02-29T12:00:00Z' }, n(3)), []),
    c('$year', 'conceptDescriptions', op('$ge', { $year: '2024-02-29T12:00:00+14:00' }, n(2024)), ALL_CDS),
    c('$dayOfMonth against a field', 'submodels', op('$lt', { $dayOfMonth: '2024-02-29T12:00:00Z' }, f(tp('Voltage'))), [TD1, TD2]),
  ],
  'type errors: no result, under $not too': [
    c('number $lt string', 'submodels', op('$lt', n(1), s('2')), []),
    c('$not(number $lt string)', 'submodels', cond({ $not: { $lt: [n(1), s('2')] } }), []),
    c('hex $eq number', 'submodels', op('$eq', { $hexVal: '16#1F' }, n(31)), []),
    c('a value that does not cast is left out', 'submodels', op('$ge', f(tp('Width')), n(0)), [TD1, TD2]),
    c('$not over values that do not cast', 'submodels', cond({ $not: { $ge: [f(tp('Width')), n(0)] } }), []),
    c(
      'an invalid dateTime text does not cast',
      'submodels',
      op('$lt', f(tp('Released')), { $dateTimeCast: s('2024-02-30T00:00:00Z') }),
      [],
    ),
    c('a field that is no dateTime', 'submodels', op('$lt', { $dateTimeCast: f(tp('Active')) }, { $dateTimeVal: '2030-01-01T00:00:00Z' }), []),
    c('$numCast of a non-number', 'conceptDescriptions', op('$eq', { $numCast: s('abc') }, n(1)), []),
    c('$boolCast of "yes"', 'conceptDescriptions', op('$eq', { $boolCast: s('yes') }, { $boolean: true }), []),
    c('$hexCast of "xyz"', 'conceptDescriptions', op('$ne', { $hexCast: s('xyz') }, { $hexVal: '16#00' }), []),
    c('$timeCast of "25:00"', 'submodels', op('$ne', { $timeCast: s('25:00') }, f(tp('Shift'))), []),
    // "Any further combinations with the invalid result will also have an invalid result" (the text) or
    // "13 $eq '13' -> false, Type mismatch" (the table): the translation takes the table's reading inside $or.
    c('$or(type error, true) keeps the true branch', 'conceptDescriptions', cond({ $or: [eq(n(1), s('1')), eq(f('$cd#idShort'), s('Width'))] }), [CD1]),
  ],
  '$cd: every operator': [
    c('$eq is case-sensitive', 'conceptDescriptions', op('$eq', f('$cd#idShort'), s('Width')), [CD1]),
    c('$ne leaves out a missing idShort', 'conceptDescriptions', op('$ne', f('$cd#idShort'), s('Width')), [CD2, CD3]),
    c('$gt ("width_alt" > "Width")', 'conceptDescriptions', op('$gt', f('$cd#idShort'), s('Width')), [CD3]),
    c('$ge', 'conceptDescriptions', op('$ge', f('$cd#idShort'), s('MaxVoltage')), [CD1, CD2, CD3]),
    c('$lt', 'conceptDescriptions', op('$lt', f('$cd#idShort'), s('Width')), [CD2]),
    c('$le', 'conceptDescriptions', op('$le', f('$cd#idShort'), s('Width')), [CD1, CD2]),
    c('$contains', 'conceptDescriptions', op('$contains', f('$cd#idShort'), s('idth')), [CD1, CD3]),
    c('$starts-with on id', 'conceptDescriptions', op('$starts-with', f('$cd#id'), s('urn:c:cd:')), ALL_CDS),
    c('$ends-with on id', 'conceptDescriptions', op('$ends-with', f('$cd#id'), s(':cd4')), [CD4]),
    c('$regex', 'conceptDescriptions', op('$regex', f('$cd#idShort'), s('^[Ww]idth')), [CD1, CD3]),
    c('$not leaves out a missing idShort', 'conceptDescriptions', cond({ $not: eq(f('$cd#idShort'), s('Width')) }), [CD2, CD3]),
    c('$eq of a field with itself', 'conceptDescriptions', op('$eq', f('$cd#id'), f('$cd#id')), ALL_CDS),
    c('$and with $boolean true', 'conceptDescriptions', cond({ $and: [{ $boolean: true }, eq(f('$cd#idShort'), s('Width'))] }), [CD1]),
    c('$not($boolean false)', 'conceptDescriptions', cond({ $not: { $boolean: false } }), ALL_CDS),
  ],
  'hierarchy': [
    c(
      '$aas and $sm together: the submodels of the matching shells',
      'submodels',
      cond({ $and: [eq(f('$aas#idShort'), s('Alpha')), eq(f('$sm#idShort'), s('TechnicalData'))] }),
      [TD1],
      'IDTA-01002-3 "Search in AAS Hierarchy": "`$sm` can be used with and without `$aas`. If `$aas` and `$sm` are used together, only the submodels referenced by the matching `$aas` are searched by the `$sm` expression."',
    ),
  ],
};

/** Queries the JSON schema (or the limits beyond it) refuses: each must be a 400 with a message. */
export const REFUSED: [string, unknown][] = [
  // description and displayName are not attributes of the grammar ("Attribute Elements for Field Identifiers").
  ['description is not a field', op('$eq', f('$aas#description[].language'), s('en'))],
  ['displayName is not a field', op('$eq', f('$aas#displayName'), s('x'))],
  // The spec's attribute table lists the `$aas#submodels` shortcut, the JSON schema's modelStringPattern not.
  ['the $aas#submodels shortcut is not in the JSON schema', op('$eq', f('$aas#submodels'), f('$aas#submodels'))],
  ['an invalid $dateTimeVal', op('$eq', f('$aas#idShort'), { $dateTimeVal: '2024-02-30T00:00:00Z' })],
  ['a $strVal starting with $', op('$eq', f('$aas#idShort'), s('$aas#id'))],
  ['a lower-case $hexVal', op('$eq', f('$aas#idShort'), { $hexVal: '16#ff' })],
  ['$match with fields of different lists', cond({ $match: [eq(f(sid('name')), s('x')), eq(f('$aas#submodels[].type'), s('x'))] })],
  ['$and inside $match', cond({ $match: [{ $and: [eq(f(sid('name')), s('x')), eq(f(sid('value')), s('y'))] }] })],
  ['roots of two kinds of objects', cond({ $or: [eq(f('$cd#id'), s('x')), eq(f('$sm#id'), s('x'))] })],
  ['$regex pattern from a field', op('$regex', f('$aas#idShort'), f('$aas#id'))],
];
