/**
 * The typed form of an AAS Query Language query (IDTA-01002-3, JSON serialisation), as `parse` produces it and
 * `toSql` consumes it.
 */

/** The roots of a field identifier: which kind of object the field is read from. */
export const ROOTS = ['$aas', '$sm', '$sme', '$cd', '$aasdesc', '$smdesc'] as const;
export type Root = (typeof ROOTS)[number];

/** A list position: a number, or `[]` ("any element of the list"). */
export type Index = number | 'any';

/** One idShort of an `$sme` idShortPath, with the list indexes that follow it (`Docs[0][]`). */
export interface PathSegment {
  idShort: string;
  indexes: Index[];
}

/** One name of an attribute declaration (`keys[0]` is `{ name: 'keys', index: 0 }`). */
export interface AttributeSegment {
  name: string;
  index?: Index;
}

export interface Field {
  kind: 'field';
  /** The field as written, for messages. */
  text: string;
  root: Root;
  /** `$sme` only: the idShortPath; empty for `$sme#...` (every element of the submodel, at any depth). */
  path: PathSegment[];
  attribute: AttributeSegment[];
}

/** The types of the query language's values. */
export type ValueType = 'string' | 'number' | 'hex' | 'dateTime' | 'time' | 'boolean';

export interface Literal {
  kind: 'literal';
  type: ValueType;
  /** string for string, hex (without `16#`), dateTime and time; number; boolean. */
  value: string | number | boolean;
}

export interface Cast {
  kind: 'cast';
  to: ValueType;
  operand: Operand;
}

/** `$dayOfWeek`, `$dayOfMonth`, `$month`, `$year` of a dateTime literal: a number. */
export interface DateTimePart {
  kind: 'dateTimePart';
  part: 'dayOfWeek' | 'dayOfMonth' | 'month' | 'year';
  value: string;
}

export type Operand = Field | Literal | Cast | DateTimePart;

export const COMPARISONS = ['$eq', '$ne', '$gt', '$ge', '$lt', '$le'] as const;
export const STRING_OPERATIONS = ['$contains', '$starts-with', '$ends-with', '$regex'] as const;
export type ComparisonOperator = (typeof COMPARISONS)[number];
export type StringOperator = (typeof STRING_OPERATIONS)[number];

export type Condition =
  | { kind: 'and'; items: Condition[] }
  | { kind: 'or'; items: Condition[] }
  | { kind: 'not'; item: Condition }
  /** All conditions hold for the same element of the lists their fields address with `[]`. */
  | { kind: 'match'; items: Condition[] }
  | { kind: 'compare'; op: ComparisonOperator | StringOperator; left: Operand; right: Operand }
  | { kind: 'boolean'; value: boolean };

/** What a query selects from: one kind of identifiable (or descriptor). */
export type QueryTarget = 'shells' | 'submodels' | 'conceptDescriptions' | 'shellDescriptors' | 'submodelDescriptors';

export interface Query {
  /** `$select: "id"`: the answer lists identifiers instead of objects. */
  select?: 'id';
  condition: Condition;
  /** The kind the query's fields address; null when it has no field (e.g. `{ "$boolean": true }`). */
  target: QueryTarget | null;
}

/** The target each root addresses. `$sm` and `$sme` both address submodels. */
export const ROOT_TARGET: Record<Root, QueryTarget> = {
  $aas: 'shells',
  $sm: 'submodels',
  $sme: 'submodels',
  $cd: 'conceptDescriptions',
  $aasdesc: 'shellDescriptors',
  $smdesc: 'submodelDescriptors',
};
