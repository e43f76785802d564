import { DocumentNode, FragmentDefinitionNode, GraphQLSchema, Kind, OperationDefinitionNode, SelectionSetNode, ValueNode, valueFromASTUntyped } from 'graphql';

/**
 * What an operation will ask of its caller and of the server, told from its document before it runs: each root
 * field's access rule (`extensions.access`, the `@Authorized` rule: src/graphql/schema.ts) with where its tenant or
 * organization comes from, and whether it is expensive work (`extensions.expensive`, or an AAS Query Language
 * `query` argument given). The auth checker still decides when the field runs; this lets a request be refused
 * before its body is read, and expensive work take its share of the pool (src/common/work-shares.ts).
 */

/** Where an argument's value comes from: a variable of the operation, or a literal of the document. */
export type ArgumentSource = { variable: string } | { value: unknown };

export interface FieldDemand {
  field: string;
  /** The field's access rule; absent for a field anyone may call. */
  access?: string;
  /** Whether the field runs whatever the variables are (no `@skip`/`@include` on it or on a fragment around it). */
  unconditional: boolean;
  tenant?: ArgumentSource;
  organizationId?: ArgumentSource;
  /** Marked expensive, or given a `query` argument (by a literal, or by a variable that is not null, if known). */
  expensive: boolean;
}

/**
 * The demands of the root fields of `operation`, through inline fragments and fragment spreads. With `variables`
 * a `query` argument given by a variable counts only when the variable is set; without them (a document prepared
 * before its variables are known) it counts.
 */
export function demandsOf(
  schema: GraphQLSchema,
  operation: OperationDefinitionNode,
  document?: DocumentNode,
  variables?: Record<string, unknown>,
): FieldDemand[] {
  const root = operation.operation === 'mutation' ? schema.getMutationType() : operation.operation === 'query' ? schema.getQueryType() : undefined;
  if (!root) return [];
  const fields = root.getFields();
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const definition of document?.definitions ?? []) {
    if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
  }
  const demands: FieldDemand[] = [];
  const seen = new Set<string>();
  const visit = (set: SelectionSetNode, conditional: boolean) => {
    for (const selection of set.selections) {
      const guarded = conditional || Boolean(selection.directives?.some((d) => d.name.value === 'skip' || d.name.value === 'include'));
      if (selection.kind === Kind.INLINE_FRAGMENT) visit(selection.selectionSet, guarded);
      else if (selection.kind === Kind.FRAGMENT_SPREAD) {
        const fragment = fragments.get(selection.name.value);
        // A fragment spread in itself is refused by validation; the guard only keeps this walk finite.
        if (fragment && !seen.has(fragment.name.value)) {
          seen.add(fragment.name.value);
          visit(fragment.selectionSet, guarded);
        }
      } else {
        const field = fields[selection.name.value];
        if (!field) continue;
        const args = new Map((selection.arguments ?? []).map((a) => [a.name.value, sourceOf(a.value)] as const));
        const query = args.get('query');
        demands.push({
          field: field.name,
          access: typeof field.extensions?.access === 'string' ? field.extensions.access : undefined,
          unconditional: !guarded,
          tenant: args.get('tenant'),
          organizationId: args.get('organizationId'),
          expensive: field.extensions?.expensive === true || (query !== undefined && isGiven(query, variables)),
        });
      }
    }
  };
  visit(operation.selectionSet, false);
  return demands;
}

function sourceOf(value: ValueNode): ArgumentSource {
  return value.kind === Kind.VARIABLE ? { variable: value.name.value } : { value: valueFromASTUntyped(value) };
}

function isGiven(source: ArgumentSource, variables: Record<string, unknown> | undefined): boolean {
  if ('value' in source) return source.value !== null;
  return variables === undefined || (variables[source.variable] !== undefined && variables[source.variable] !== null);
}

/** An argument's value: the literal, or the variable's value when `variables` are known. */
export function argumentValue(source: ArgumentSource | undefined, variables: Record<string, unknown> | undefined): unknown {
  if (!source) return undefined;
  return 'value' in source ? source.value : variables?.[source.variable];
}
