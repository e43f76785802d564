import { FragmentDefinitionNode, GraphQLError, Kind, SelectionSetNode, ValidationContext, ValidationRule } from 'graphql';

/**
 * Bounds on what one GraphQL document may ask for, checked at validation, before anything runs: each root
 * field is a database query, and aliases or fragment spreads can repeat a field without limit.
 */
export const MAX_ROOT_FIELDS = 20;
export const MAX_SELECTIONS = 2_000;
/** Lexical tokens in a document: enough for the introspection query many times over. */
export const MAX_TOKENS = 20_000;

/** How many field selections a selection set makes, fragments expanded (validation rejects cycles later). */
function sizeOf(set: SelectionSetNode, fragments: Map<string, FragmentDefinitionNode>, memo: Map<string, number>, visiting: Set<string>): number {
  let size = 0;
  for (const selection of set.selections) {
    if (selection.kind === Kind.FIELD) {
      size += 1 + (selection.selectionSet ? sizeOf(selection.selectionSet, fragments, memo, visiting) : 0);
    } else if (selection.kind === Kind.INLINE_FRAGMENT) {
      size += sizeOf(selection.selectionSet, fragments, memo, visiting);
    } else {
      const name = selection.name.value;
      const fragment = fragments.get(name);
      if (!fragment || visiting.has(name)) continue;
      if (!memo.has(name)) {
        visiting.add(name);
        memo.set(name, sizeOf(fragment.selectionSet, fragments, memo, visiting));
        visiting.delete(name);
      }
      size += memo.get(name)!;
    }
    if (size > MAX_SELECTIONS) return size;
  }
  return size;
}

/** The fields a selection set selects at its own level, through fragments. */
function fieldsAtLevel(set: SelectionSetNode, fragments: Map<string, FragmentDefinitionNode>, visiting = new Set<string>()): number {
  let count = 0;
  for (const selection of set.selections) {
    if (selection.kind === Kind.FIELD) count++;
    else if (selection.kind === Kind.INLINE_FRAGMENT) count += fieldsAtLevel(selection.selectionSet, fragments, visiting);
    else {
      const fragment = fragments.get(selection.name.value);
      if (!fragment || visiting.has(fragment.name.value)) continue;
      visiting.add(fragment.name.value);
      count += fieldsAtLevel(fragment.selectionSet, fragments, visiting);
      visiting.delete(fragment.name.value);
    }
  }
  return count;
}

export const operationLimits: ValidationRule = (context: ValidationContext) => {
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const definition of context.getDocument().definitions) {
    if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
  }
  const memo = new Map<string, number>();
  return {
    OperationDefinition(operation) {
      const name = operation.name ? `'${operation.name.value}'` : 'The operation';
      const roots = fieldsAtLevel(operation.selectionSet, fragments);
      if (roots > MAX_ROOT_FIELDS) {
        context.reportError(new GraphQLError(`${name} has ${roots} root fields; at most ${MAX_ROOT_FIELDS} are allowed.`, { nodes: operation }));
      }
      const size = sizeOf(operation.selectionSet, fragments, memo, new Set());
      if (size > MAX_SELECTIONS) {
        context.reportError(new GraphQLError(`${name} selects more than ${MAX_SELECTIONS} fields (aliases and fragments counted).`, { nodes: operation }));
      }
    },
  };
};
