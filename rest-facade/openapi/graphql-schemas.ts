import {
  FieldNode,
  GraphQLInputType,
  GraphQLNamedType,
  GraphQLOutputType,
  GraphQLSchema,
  OperationDefinitionNode,
  SelectionSetNode,
  TypeNode,
  getNamedType,
  isEnumType,
  isInputObjectType,
  isListType,
  isNonNullType,
  isObjectType,
  isScalarType,
  parse,
  typeFromAST,
} from 'graphql';
import type { Json } from './bundle';

/**
 * JSON Schemas of a Management API route's body and answer, derived from the GraphQL operation it runs: the
 * body is the `$input` variable (a typed input object, unknown fields refused), the answer the selected fields of
 * the root field. So the document says what the server checks and returns, from the one schema both faces share.
 */

const SCALARS: Record<string, Json> = {
  String: { type: 'string' },
  ID: { type: 'string' },
  Int: { type: 'integer' },
  Float: { type: 'number' },
  Boolean: { type: 'boolean' },
  DateTimeISO: { type: 'string', format: 'date-time' },
};

const scalarSchema = (type: GraphQLNamedType): Json => SCALARS[type.name] ?? {};

export interface RouteSchemas {
  /** Components (input objects), by GraphQL type name. */
  components: Record<string, Json>;
  /** The body's schema (a $ref), when the operation takes `$input`. */
  body?: Json;
  /** The root field's answer: its schema, and whether it is a page (`result` + `pagingMetadata`). */
  answer?: { schema: Json; page: boolean; boolean: boolean };
}

export function routeSchemas(schema: GraphQLSchema, operation: string): RouteSchemas {
  const components: Record<string, Json> = {};
  const doc = parse(operation);
  const op = doc.definitions.find((d): d is OperationDefinitionNode => d.kind === 'OperationDefinition');
  if (!op) return { components };
  const result: RouteSchemas = { components };
  const input = op.variableDefinitions?.find((v) => v.variable.name.value === 'input');
  if (input) result.body = inputSchema(schema, input.type, components);
  const root = op.selectionSet.selections.find((s): s is FieldNode => s.kind === 'Field');
  const rootType = op.operation === 'mutation' ? schema.getMutationType() : schema.getQueryType();
  const field = root && rootType?.getFields()[root.name.value];
  if (field && root) {
    const named = getNamedType(field.type);
    const page = isObjectType(named) && named.name.endsWith('Page') && 'result' in named.getFields();
    result.answer = { schema: outputSchema(field.type, root.selectionSet, true), page, boolean: named.name === 'Boolean' };
  }
  return result;
}

function inputSchema(schema: GraphQLSchema, node: TypeNode, components: Record<string, Json>): Json {
  const type = typeFromAST(schema, node as Parameters<typeof typeFromAST>[1]) as GraphQLInputType | undefined;
  return type ? inputTypeSchema(type, components) : {};
}

function inputTypeSchema(type: GraphQLInputType, components: Record<string, Json>): Json {
  if (isNonNullType(type)) return inputTypeSchema(type.ofType, components);
  if (isListType(type)) return { type: 'array', items: inputTypeSchema(type.ofType, components) };
  if (isEnumType(type)) return { type: 'string', enum: type.getValues().map((v) => v.value) };
  if (isScalarType(type)) return scalarSchema(type);
  if (isInputObjectType(type)) {
    if (!components[type.name]) {
      components[type.name] = {}; // recursion guard
      const fields = Object.values(type.getFields());
      components[type.name] = {
        type: 'object',
        ...(type.description ? { description: type.description } : {}),
        properties: Object.fromEntries(
          fields.map((f) => {
            const inner = inputTypeSchema(f.type, components);
            const nullable = !isNonNullType(f.type);
            return [f.name, { ...(nullable && inner.type ? { ...inner, type: [inner.type, 'null'] } : inner), ...(f.description ? { description: f.description } : {}) }];
          }),
        ),
        required: fields.filter((f) => isNonNullType(f.type) && f.defaultValue === undefined).map((f) => f.name),
        additionalProperties: false,
      };
    }
    return { $ref: `#/components/schemas/${type.name}` };
  }
  return {};
}

/** The answer of selected fields; `etag` goes into the ETag header, not the body (management route helpers). */
function outputSchema(type: GraphQLOutputType, selection: SelectionSetNode | undefined, top: boolean): Json {
  const nullable = !isNonNullType(type);
  const inner = isNonNullType(type) ? type.ofType : type;
  let schema: Json;
  if (isListType(inner)) schema = { type: 'array', items: outputSchema(inner.ofType, selection, false) };
  else if (isEnumType(inner)) schema = { type: 'string', enum: inner.getValues().map((v) => v.value) };
  else if (isScalarType(inner)) schema = scalarSchema(inner);
  else if (isObjectType(inner) && selection) {
    const fields = inner.getFields();
    const properties: Record<string, Json> = {};
    const required: string[] = [];
    for (const sel of selection.selections) {
      if (sel.kind !== 'Field' || sel.name.value === 'etag' || sel.name.value === '__typename') continue;
      const f = fields[sel.name.value];
      if (!f) continue;
      const name = sel.name.value === 'pagingMetadata' ? 'paging_metadata' : (sel.alias?.value ?? sel.name.value);
      properties[name] = { ...outputSchema(f.type, sel.selectionSet, false), ...(f.description ? { description: f.description } : {}) };
      if (isNonNullType(f.type)) required.push(name);
    }
    schema = { type: 'object', properties, ...(required.length ? { required } : {}) };
  } else schema = {};
  return nullable && !top && typeof schema.type === 'string' ? { ...schema, type: [schema.type, 'null'] } : schema;
}
