import { Field, InputType, Int, ObjectType, registerEnumType } from 'type-graphql';
import { LangString, PagingMetadata } from '../model/graphql-types';

export enum SemanticMatchingArg {
  exact = 'exact',
  equivalent = 'equivalent',
}
registerEnumType(SemanticMatchingArg, {
  name: 'SemanticMatching',
  description:
    'How semantic ids are compared: `exact` as written (the default), `equivalent` by the equivalence rules of the semantic connector: ' +
    'IRDI spellings and versions, isCaseOf of concept descriptions and dictionary entries, equivalence sets of the tenant (docs/semantic-connector.md).',
});

@ObjectType('SemanticValue', { description: 'A value of a value list: its text and the id of its meaning.' })
export class SemanticValueType {
  @Field()
  value: string;

  @Field(() => String, { nullable: true })
  valueId: string | null;
}

@ObjectType('Meaning', { description: 'What a concept is, as an IEC 61360 data specification says it.' })
export class MeaningType {
  @Field(() => [LangString])
  preferredName: LangString[];

  @Field(() => [LangString])
  shortName: LangString[];

  @Field(() => [LangString])
  definition: LangString[];

  @Field(() => String, { nullable: true })
  unit: string | null;

  @Field(() => String, { nullable: true, description: 'The id of the unit (e.g. an ECLASS unit IRDI).' })
  unitId: string | null;

  @Field(() => String, { nullable: true })
  symbol: string | null;

  @Field(() => String, { nullable: true, description: 'The IEC 61360 data type (REAL_MEASURE, STRING, ...), or that of the dictionary.' })
  dataType: string | null;

  @Field(() => [SemanticValueType])
  valueList: SemanticValueType[];
}

@ObjectType('SemanticConcept', { description: 'A concept description of the tenant that matched.' })
export class SemanticConceptType {
  @Field()
  id: string;

  @Field(() => String, { nullable: true })
  idShort: string | null;

  @Field(() => MeaningType)
  meaning: MeaningType;
}

@ObjectType('SemanticEntry', { description: 'An entry of a dictionary the tenant imported.' })
export class SemanticEntryType {
  @Field()
  dictionaryId: string;

  @Field()
  dictionaryName: string;

  @Field({ description: 'The concept id as the dictionary writes it.' })
  conceptId: string;

  @Field({ nullable: true, description: 'Its equivalence key (search results only).' })
  key?: string;

  @Field(() => [String], { nullable: true, description: 'The equivalence keys of the ids it is a case of (search results only).' })
  isCaseOf?: string[];

  @Field(() => MeaningType)
  meaning: MeaningType;
}

@ObjectType('SemanticResolution', { description: 'What the tenant knows of a semantic id.' })
export class SemanticResolutionType {
  @Field()
  semanticId: string;

  @Field({ description: 'Its equivalence key: an IRDI without its version, upper-cased, `irdi:` before it; any other id as written.' })
  key: string;

  @Field(() => SemanticMatchingArg)
  matching: SemanticMatchingArg;

  @Field(() => [String], { description: 'The keys it matched by: its own, and with `equivalent` those of its equivalents.' })
  equivalentKeys: string[];

  @Field(() => [SemanticConceptType])
  conceptDescriptions: SemanticConceptType[];

  @Field(() => [SemanticEntryType])
  entries: SemanticEntryType[];
}

@ObjectType('SemanticDictionary')
export class SemanticDictionaryType {
  @Field()
  id: string;

  @Field()
  name: string;

  @Field({ description: 'What it was imported from: aas-json, aas-xml, aasx or eclass-csv.' })
  format: string;

  @Field(() => Int)
  entryCount: number;

  @Field()
  createdAt: Date;
}

@ObjectType('SemanticDictionaryPage')
export class SemanticDictionaryPage {
  @Field(() => [SemanticDictionaryType])
  result: SemanticDictionaryType[];

  @Field(() => PagingMetadata)
  pagingMetadata: PagingMetadata;
}

@ObjectType('SemanticEntryPage')
export class SemanticEntryPage {
  @Field(() => [SemanticEntryType])
  result: SemanticEntryType[];

  @Field(() => PagingMetadata)
  pagingMetadata: PagingMetadata;
}

@ObjectType('EquivalenceSet', { description: 'Semantic ids the tenant declares equivalent.' })
export class EquivalenceSetType {
  @Field()
  id: string;

  @Field(() => String, { nullable: true })
  name: string | null;

  @Field(() => [String])
  members: string[];

  @Field()
  createdAt: Date;
}

@ObjectType('EquivalenceSetPage')
export class EquivalenceSetPage {
  @Field(() => [EquivalenceSetType])
  result: EquivalenceSetType[];

  @Field(() => PagingMetadata)
  pagingMetadata: PagingMetadata;
}

@InputType('EquivalenceSetInput')
export class EquivalenceSetInput {
  @Field(() => String, { nullable: true })
  name?: string | null;

  @Field(() => [String], { description: '2 to 100 semantic ids.' })
  members: string[];
}

@ObjectType('SemanticUsage', { description: 'A submodel (idShortPath null) or an element that carries the semantic id.' })
export class SemanticUsageType {
  @Field()
  submodelId: string;

  @Field(() => String, { nullable: true })
  idShortPath: string | null;

  @Field()
  modelType: string;

  @Field({ description: 'Its semantic id (first key) as written.' })
  semanticId: string;
}

@ObjectType('SemanticUsagePage')
export class SemanticUsagePage {
  @Field(() => [SemanticUsageType])
  result: SemanticUsageType[];

  @Field(() => PagingMetadata)
  pagingMetadata: PagingMetadata;
}

@ObjectType('SemanticShellIdPage')
export class ShellIdPage {
  @Field(() => [String])
  result: string[];

  @Field(() => PagingMetadata)
  pagingMetadata: PagingMetadata;
}
