import { ExecutionResult, GraphQLError, GraphQLSchema, getOperationAST, parse, validate } from 'graphql';
import { CompiledQuery, compileQuery, isCompiledQuery } from 'graphql-jit';
import type { Context } from '../src/graphql/context';
import { FieldDemand, demandsOf } from '../src/common/operation-demands';
import { DATABASE_UNAVAILABLE, errorCodeOf, statusOfCode, unavailableText } from '../src/graphql/errors';
import { inApiTerms } from './variable-errors';
import { FacadeError } from './facade-error';

export interface PreparedOperation {
  compiled: CompiledQuery;
  /** What its root fields ask of the caller, and whether it is expensive work: known before it runs. */
  demands: FieldDemand[];
}

/**
 * The operations compiled for each schema, by source: compiling is most of the cost of building the routes, and a
 * compiled operation depends on nothing but its schema and its text (the services come with each request's
 * context), so a process that builds the app again (tests, several servers in one process) compiles each once.
 */
const compiledBySchema = new WeakMap<GraphQLSchema, Map<string, PreparedOperation>>();

/**
 * Runs the facade's GraphQL operations in-process. Every document is parsed, validated and compiled (graphql-jit)
 * once, when the routes are built; a request only executes the compiled operation, against the same schema,
 * resolvers and auth checker as /graphql.
 */
export class OperationExecutor {
  constructor(private readonly schema: GraphQLSchema) {}

  prepare(source: string): PreparedOperation {
    let bySource = compiledBySchema.get(this.schema);
    if (!bySource) compiledBySchema.set(this.schema, (bySource = new Map()));
    let prepared = bySource.get(source);
    if (!prepared) bySource.set(source, (prepared = this.compile(source)));
    return prepared;
  }

  private compile(source: string): PreparedOperation {
    const document = parse(source);
    const errors = validate(this.schema, document);
    if (errors.length) throw new Error(`facade operation does not fit the schema: ${errors.map((e) => e.message).join('; ')}\n${source}`);
    const compiled = compileQuery(this.schema, document);
    if (!isCompiledQuery(compiled)) throw new Error(`facade operation does not compile: ${compiled.errors?.map((e) => e.message).join('; ')}`);
    return { compiled, demands: demandsOf(this.schema, getOperationAST(document)!, document) };
  }

  /** The operation's data; a GraphQL error becomes a FacadeError with the status its code maps to. */
  async run<T>(op: PreparedOperation, variableValues: Record<string, unknown>, contextValue: Context): Promise<T> {
    const result = (await op.compiled.query(undefined, contextValue, variableValues)) as ExecutionResult;
    if (result.errors?.length) throw toFacadeError(result.errors, contextValue, !('data' in result));
    return result.data as T;
  }
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
