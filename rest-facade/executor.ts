import { ExecutionResult, GraphQLError, GraphQLSchema, getOperationAST, parse, validate } from 'graphql';
import { CompiledQuery, compileQuery, isCompiledQuery } from 'graphql-jit';
import type { Context } from '../src/graphql/context';
import { FieldDemand, demandsOf } from '../src/common/operation-demands';
import { DATABASE_UNAVAILABLE, errorCodeOf, statusOfCode, unavailableText } from '../src/graphql/errors';
import { inApiTerms } from './variable-errors';
import { FacadeError } from './facade-error';

export interface PreparedOperation {
  /** The operation's text, validated and compiled when first run (or warmed, `compilePending`). */
  readonly source: string;
  /** What its root fields ask of the caller, and whether it is expensive work: known before it runs. */
  readonly demands: FieldDemand[];
}

interface Operation extends PreparedOperation {
  compiled?: CompiledQuery;
}

/**
 * The operations prepared for each schema, by source: a prepared operation depends on nothing but its schema and its
 * text (the services come with each request's context), so a process that builds the app again (tests, several
 * servers in one process) prepares and compiles each once.
 */
const preparedBySchema = new WeakMap<GraphQLSchema, Map<string, Operation>>();

/**
 * Runs the facade's GraphQL operations in-process, against the same schema, resolvers and auth checker as /graphql.
 * Building the routes parses each operation (what it demands of the caller decides the route's admission); it is
 * validated and compiled (graphql-jit) when first run. Compiling all of them is most of the cost of building the
 * routes, so a starting server does not wait for it: `compilePending` compiles the rest once the server listens.
 */
export class OperationExecutor {
  constructor(private readonly schema: GraphQLSchema) {}

  prepare(source: string): PreparedOperation {
    let bySource = preparedBySchema.get(this.schema);
    if (!bySource) preparedBySchema.set(this.schema, (bySource = new Map()));
    let prepared = bySource.get(source);
    if (!prepared) {
      const document = parse(source);
      bySource.set(source, (prepared = { source, demands: demandsOf(this.schema, getOperationAST(document)!, document) }));
    }
    return prepared;
  }

  private compiled(op: PreparedOperation): CompiledQuery {
    const operation = op as Operation;
    return (operation.compiled ??= compile(this.schema, op.source));
  }

  /** The operation's data; a GraphQL error becomes a FacadeError with the status its code maps to. */
  async run<T>(op: PreparedOperation, variableValues: Record<string, unknown>, contextValue: Context): Promise<T> {
    const result = (await this.compiled(op).query(undefined, contextValue, variableValues)) as ExecutionResult;
    if (result.errors?.length) throw toFacadeError(result.errors, contextValue, !('data' in result));
    return result.data as T;
  }
}

function compile(schema: GraphQLSchema, source: string): CompiledQuery {
  const document = parse(source);
  const errors = validate(schema, document);
  if (errors.length) throw new Error(`facade operation does not fit the schema: ${errors.map((e) => e.message).join('; ')}\n${source}`);
  const compiled = compileQuery(schema, document);
  if (!isCompiledQuery(compiled)) throw new Error(`facade operation does not compile: ${compiled.errors?.map((e) => e.message).join('; ')}`);
  return compiled;
}

/**
 * Compiles every prepared operation of the schema not compiled yet, one per turn of the event loop so that requests
 * go between them; resolves with how many it compiled. A started server runs it once it listens, and the tests run it
 * to prove that every operation of every route fits the schema (a fault it throws names the operation).
 */
export async function compilePending(schema: GraphQLSchema): Promise<number> {
  let count = 0;
  for (const operation of preparedBySchema.get(schema)?.values() ?? []) {
    if (operation.compiled) continue;
    await new Promise((resolve) => setImmediate(resolve));
    operation.compiled ??= compile(schema, operation.source);
    count++;
  }
  return count;
}

/** How many operations the routes built on this schema prepared, and how many of them are compiled. */
export function preparedOperations(schema: GraphQLSchema): { prepared: number; compiled: number } {
  const operations = [...(preparedBySchema.get(schema)?.values() ?? [])];
  return { prepared: operations.length, compiled: operations.filter((o) => o.compiled).length };
}

/**
 * What a service call made outside an operation (a streamed route reading from the services) threw, as the
 * facade answers it: an AppError keeps its status; anything else is what it would be inside an operation.
 */
export function facadeErrorOf(err: unknown, context: Context): FacadeError {
  if (err instanceof FacadeError) return err;
  const error = err instanceof GraphQLError ? err : new GraphQLError((err as Error)?.message ?? 'failed', { originalError: err as Error });
  return toFacadeError([error], context, false);
}

function toFacadeError(errors: readonly GraphQLError[], context: Context, requestError: boolean): FacadeError {
  const first = errors[0];
  // Without data, the request itself failed before execution: variables that do not fit their types.
  const status = requestError ? 400 : statusOfCode(errorCodeOf(first));
  if (status === 500) {
    context.log.error({ err: first.originalError ?? first, path: first.path }, 'operation failed');
    return new FacadeError(500, 'Internal server error.');
  }
  if (status === 503) {
    const text = unavailableText(first.originalError);
    context.log.warn({ err: first.originalError ?? first }, text === DATABASE_UNAVAILABLE ? 'database unavailable' : 'lock wait ran out');
    return new FacadeError(503, text);
  }
  const messages = errors.flatMap((e) => (Array.isArray(e.extensions?.messages) ? (e.extensions.messages as string[]) : [e.message]));
  // Variables that do not fit the operation are the body or the parameters that do not fit the route.
  if (requestError) return new FacadeError(status, inApiTerms(first.message), messages.map(inApiTerms));
  return new FacadeError(status, first.message, messages);
}
