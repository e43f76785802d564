import {
  DocumentNode,
  FragmentDefinitionNode,
  GraphQLError,
  GraphQLField,
  GraphQLNamedType,
  GraphQLSchema,
  Kind,
  OperationDefinitionNode,
  SelectionSetNode,
  TypeNode,
  ValidationContext,
  ValidationRule,
  ValueNode,
  getNamedType,
  getNullableType,
  isInputObjectType,
  isInterfaceType,
  isListType,
  isObjectType,
  isScalarType,
} from 'graphql';
import { DEFAULT_LIMIT, MAX_LIMIT } from '../common/cursor';
import { badGraphqlRequest } from './errors';

/**
 * Bounds on what one GraphQL document may ask for. The shape limits are checked at validation, before anything
 * runs: each root field is a database query, and aliases or fragment spreads can repeat a field without limit.
 * The cost limit needs the variables (a `limit` may be one), so it is checked once the operation is resolved.
 */
export const MAX_ROOT_FIELDS = 20;
export const MAX_SELECTIONS = 2_000;
/**
 * Lexical tokens in a document: enough for the introspection query many times over. Some of graphql-js's
 * validation rules take time quadratic in the number of fragments, which this also bounds (1,200 fragments: ~40 ms).
 */
export const MAX_TOKENS = 10_000;
/** How deep selections may nest, fragments expanded (the introspection query needs about 15). */
export const MAX_DEPTH = 64;
/** How deep brackets may nest in a document's text: graphql-js parses recursively, and overflows past ~3,000. */
export const MAX_TEXT_DEPTH = 128;

/** Whether brackets (`{`, `(`, `[`) in a GraphQL document's text nest deeper than `MAX_TEXT_DEPTH`, strings and comments aside. */
export function nestsTooDeep(text: string): boolean {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '#') {
      while (i < text.length && text[i] !== '\n') i++;
    } else if (c === '"') {
      if (text.startsWith('"""', i)) {
        const end = text.indexOf('"""', i + 3);
        i = end < 0 ? text.length : end + 2;
      } else {
        for (i++; i < text.length && text[i] !== '"' && text[i] !== '\n'; i++) if (text[i] === '\\') i++;
      }
    } else if (c === '{' || c === '(' || c === '[') {
      if (++depth > MAX_TEXT_DEPTH) return true;
    } else if (c === '}' || c === ')' || c === ']') {
      depth--;
    }
  }
  return false;
}
/** The estimated cost of one operation, in units of one field of one item (see `operationCost`). */
export const MAX_COST = 100_000;
/** What a field returning a JSON document (or a part of one: `json`, `value`, `metadata`) costs per item. */
export const DOCUMENT_COST = 100;
/** How many items a list without a `limit` argument (elements, references, lang strings) is taken to hold. */
export const LIST_ESTIMATE = 10;

type Fragments = Map<string, FragmentDefinitionNode>;

/**
 * Counts per selection set, fragments expanded, each fragment's count computed once (memo by name): a fragment
 * spread twice in each of 30 nested fragments is 2^30 selections, counted in 31 steps. Cycles count as nothing
 * here; graphql-js's NoFragmentCycles rule rejects them.
 */
class SelectionCounter {
  private readonly memo = new Map<string, Counted>();
  private readonly visiting = new Set<string>();
  /** Whether some selection nests deeper than `MAX_DEPTH`, fragments expanded. */
  tooDeep = false;

  constructor(private readonly fragments: Fragments) {}

  /**
   * Field selections in the whole tree (`size`), at the set's own level (`roots`), and how deep fields nest below
   * it (`height`). Past `MAX_DEPTH` it stops descending (and says so in `tooDeep`), so a chain of fragments that
   * nests thousands deep cannot overflow the stack.
   */
  count(set: SelectionSetNode, depth = 0): Counted {
    if (depth > MAX_DEPTH) {
      this.tooDeep = true;
      return { size: 0, roots: 0, height: 0 };
    }
    let size = 0;
    let roots = 0;
    let height = 0;
    for (const selection of set.selections) {
      if (selection.kind === Kind.FIELD) {
        const inner = selection.selectionSet ? this.count(selection.selectionSet, depth + 1) : undefined;
        size += 1 + (inner?.size ?? 0);
        roots += 1;
        height = Math.max(height, 1 + (inner?.height ?? 0));
      } else {
        const inner = selection.kind === Kind.INLINE_FRAGMENT ? this.count(selection.selectionSet, depth) : this.fragment(selection.name.value, depth);
        size += inner.size;
        roots += inner.roots;
        height = Math.max(height, inner.height);
      }
      // Past the limits the exact figures do not matter; saturating keeps the sums finite.
      if (size > MAX_SELECTIONS) size = MAX_SELECTIONS + 1;
      if (roots > MAX_ROOT_FIELDS) roots = MAX_ROOT_FIELDS + 1;
    }
    if (depth + height > MAX_DEPTH) this.tooDeep = true;
    return { size, roots, height };
  }

  private fragment(name: string, depth: number): Counted {
    const known = this.memo.get(name);
    if (known) {
      if (depth + known.height > MAX_DEPTH) this.tooDeep = true;
      return known;
    }
    const fragment = this.fragments.get(name);
    if (!fragment || this.visiting.has(name)) return { size: 0, roots: 0, height: 0 };
    this.visiting.add(name);
    const counted = this.count(fragment.selectionSet, depth);
    this.visiting.delete(name);
    this.memo.set(name, counted);
    return counted;
  }
}

interface Counted {
  size: number;
  roots: number;
  height: number;
}

function fragmentsOf(document: DocumentNode): Fragments {
  const fragments: Fragments = new Map();
  for (const definition of document.definitions) {
    if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
  }
  return fragments;
}

export const operationLimits: ValidationRule = (context: ValidationContext) => {
  const counter = new SelectionCounter(fragmentsOf(context.getDocument()));
  return {
    OperationDefinition(operation) {
      const name = operation.name ? `'${operation.name.value}'` : 'The operation';
      const { size, roots } = counter.count(operation.selectionSet);
      if (roots > MAX_ROOT_FIELDS) {
        context.reportError(new GraphQLError(`${name} has more than ${MAX_ROOT_FIELDS} root fields (fragments counted).`, { nodes: operation }));
      }
      if (size > MAX_SELECTIONS) {
        context.reportError(new GraphQLError(`${name} selects more than ${MAX_SELECTIONS} fields (aliases and fragments counted).`, { nodes: operation }));
      }
      if (counter.tooDeep) {
        context.reportError(new GraphQLError(`${name} nests selections deeper than ${MAX_DEPTH} levels (fragments expanded).`, { nodes: operation }));
      }
    },
  };
};

/** The number a `limit` argument stands for: a literal, a variable's value, else the argument's default. */
function limitOf(field: GraphQLField<unknown, unknown>, node: ValueNode | undefined, variables: Record<string, unknown>): number {
  const pick = (value: unknown) => (typeof value === 'number' && Number.isInteger(value) && value >= 0 ? Math.min(value, MAX_LIMIT) : undefined);
  if (node?.kind === Kind.INT) return pick(Number(node.value)) ?? MAX_LIMIT;
  if (node?.kind === Kind.VARIABLE) return pick(variables[node.name.value]) ?? DEFAULT_LIMIT;
  if (node) return MAX_LIMIT; // not an integer: execution rejects it, and nothing runs
  return pick(field.args.find((a) => a.name === 'limit')?.defaultValue) ?? DEFAULT_LIMIT;
}

/** A page type (`result` + `pagingMetadata`): its `result` list holds the `limit` items its field already counted. */
function isPageResult(parent: GraphQLNamedType, fieldName: string): boolean {
  return fieldName === 'result' && isObjectType(parent) && 'pagingMetadata' in parent.getFields();
}

/**
 * The estimated cost of an operation: every field costs 1 for each item it is resolved on (a field returning a JSON
 * document costs `DOCUMENT_COST`), and a field's subtree is resolved once per item of its list: `limit` items
 * under a paged field, `LIST_ESTIMATE` under any other list. Introspection fields cost 1 and are not descended
 * into: their answer is bounded by the schema. The walk expands fragments, which validation has already bounded
 * to `MAX_SELECTIONS` selections.
 */
export function operationCost(schema: GraphQLSchema, document: DocumentNode, operation: OperationDefinitionNode, variables: Record<string, unknown> = {}): number {
  const fragments = fragmentsOf(document);
  const root = operation.operation === 'mutation' ? schema.getMutationType() : operation.operation === 'subscription' ? schema.getSubscriptionType() : schema.getQueryType();
  const visit = (set: SelectionSetNode, parent: GraphQLNamedType, seen: Set<string>): number => {
    let cost = 0;
    for (const selection of set.selections) {
      if (selection.kind === Kind.INLINE_FRAGMENT) {
        const type = selection.typeCondition ? schema.getType(selection.typeCondition.name.value) : parent;
        cost += visit(selection.selectionSet, type ?? parent, seen);
      } else if (selection.kind === Kind.FRAGMENT_SPREAD) {
        const fragment = fragments.get(selection.name.value);
        if (!fragment || seen.has(fragment.name.value)) continue;
        const type = schema.getType(fragment.typeCondition.name.value) ?? parent;
        cost += visit(fragment.selectionSet, type, new Set(seen).add(fragment.name.value));
      } else if (selection.name.value.startsWith('__')) {
        cost += 1;
      } else {
        const field = isObjectType(parent) || isInterfaceType(parent) ? parent.getFields()[selection.name.value] : undefined;
        if (!field) {
          cost += 1;
          continue;
        }
        const type = getNamedType(field.type);
        const own = isScalarType(type) && type.name.startsWith('JSON') ? DOCUMENT_COST : 1;
        let items = 1;
        if (field.args.some((a) => a.name === 'limit')) {
          items = limitOf(field, selection.arguments?.find((a) => a.name.value === 'limit')?.value, variables);
        } else if (isListType(getNullableType(field.type)) && !isPageResult(parent, field.name)) {
          items = LIST_ESTIMATE;
        }
        cost += items * (own + (selection.selectionSet ? visit(selection.selectionSet, type, seen) : 0));
      }
      if (cost > MAX_COST) return cost;
    }
    return cost;
  };
  return root ? visit(operation.selectionSet, root, new Set()) : 0;
}

/** The cost check as an error, or undefined when the operation is within `MAX_COST`. */
export function costError(schema: GraphQLSchema, document: DocumentNode, operation: OperationDefinitionNode, variables?: Record<string, unknown>): GraphQLError | undefined {
  const cost = operationCost(schema, document, operation, variables);
  if (cost <= MAX_COST) return undefined;
  const name = operation.name ? `'${operation.name.value}'` : 'The operation';
  return badGraphqlRequest(
    `${name} is estimated to cost ${cost > MAX_COST * 100 ? `more than ${MAX_COST * 100}` : cost} units; at most ${MAX_COST} are allowed. ` +
      'Ask for fewer items (limit), fewer aliases or fewer document fields (json, value).',
  );
}

/**
 * The longest text an identifier argument (`id`, `submodelId`, ...) may hold: an AAS Identifier is at most 2,000
 * characters in V3.0 and 2,048 since V3.1, whose documents the import stores (with a V3.0 verification warning).
 */
export const MAX_ID_LENGTH = 2_048;
/** The longest text any other String argument may hold (idShortPaths, cursors, filters, If-Match lists). */
export const MAX_STRING_ARGUMENT = 16_384;

/** The longest value allowed for a String argument or input field named `name`. */
export function maxLengthOf(name: string): number {
  return name === 'id' || /[a-z]Id$/.test(name) ? MAX_ID_LENGTH : MAX_STRING_ARGUMENT;
}

const isStringType = (type: unknown) => isScalarType(type) && (type.name === 'String' || type.name === 'ID');

function tooLong(name: string, length: number): string {
  return `Argument '${name}' is ${length} characters long; at most ${maxLengthOf(name)} are allowed.`;
}

/** String arguments and input fields written into the document: bounded like variables (JSON documents are not). */
export const stringArgumentLimits: ValidationRule = (context: ValidationContext) => {
  const check = (name: string, value: ValueNode, type: unknown) => {
    if (value.kind === Kind.STRING && isStringType(getNamedType(type as never)) && value.value.length > maxLengthOf(name)) {
      context.reportError(new GraphQLError(tooLong(name, value.value.length), { nodes: value }));
    }
  };
  return {
    Argument(node) {
      const argument = context.getArgument();
      if (argument) check(node.name.value, node.value, argument.type);
    },
    ObjectField(node) {
      const type = context.getInputType();
      if (type) check(node.name.value, node.value, type);
    },
  };
};

/**
 * Why the variables' String values (top level, or fields of input objects and lists of them) are too long, or
 * undefined. A JSON-typed variable carries a document, whose strings only the body limit bounds.
 */
export function stringVariableProblem(schema: GraphQLSchema, operation: OperationDefinitionNode, variables: Record<string, unknown> | undefined): string | undefined {
  if (!variables) return undefined;
  const visit = (name: string, value: unknown, type: GraphQLNamedType | undefined, depth: number): string | undefined => {
    if (value === null || value === undefined || type === undefined || depth > 8) return undefined;
    if (Array.isArray(value)) {
      for (const item of value) {
        const problem = visit(name, item, type, depth + 1);
        if (problem) return problem;
      }
      return undefined;
    }
    if (isStringType(type)) return typeof value === 'string' && value.length > maxLengthOf(name) ? tooLong(name, value.length) : undefined;
    if (isInputObjectType(type) && typeof value === 'object') {
      for (const [field, def] of Object.entries(type.getFields())) {
        const problem = visit(field, (value as Record<string, unknown>)[field], getNamedType(def.type), depth + 1);
        if (problem) return problem;
      }
    }
    return undefined;
  };
  for (const definition of operation.variableDefinitions ?? []) {
    const name = definition.variable.name.value;
    const type = schema.getType(namedTypeOf(definition.type));
    const problem = visit(name, variables[name], type ?? undefined, 0);
    if (problem) return problem.replace(`Argument '${name}'`, `Variable '$${name}'`);
  }
  return undefined;
}

function namedTypeOf(node: TypeNode): string {
  return node.kind === Kind.NAMED_TYPE ? node.name.value : namedTypeOf(node.type);
}
