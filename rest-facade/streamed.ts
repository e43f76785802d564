import { Readable } from 'node:stream';
import type { Context as KoaContext } from 'koa';
import type { Context } from '../src/graphql/context';
import { OperationExecutor, PreparedOperation } from './executor';

/** A tenant the auth checker admitted, as the context holds it. */
type TenantEntity = NonNullable<ReturnType<Context['authorizedTenants']['get']>>;

/**
 * Routes whose answers are byte streams (downloads, serializations) cannot be a GraphQL answer. They still
 * go through the one access policy: a GraphQL operation admits the caller to the tenant (the `tenant` query,
 * `@Authorized(reader)`, or a mutation that needs contributor), and only then does the route read from the
 * services the same context carries.
 */
export class TenantAccess {
  private readonly read: PreparedOperation;
  private readonly write: PreparedOperation;

  constructor(private readonly executor: OperationExecutor) {
    this.read = executor.prepare('query Admit($tenant: String!) { tenant(tenant: $tenant) { name } }');
    this.write = executor.prepare('query AdmitWriter($tenant: String!) { writableTenant(tenant: $tenant) { name } }');
  }

  /** The tenant, once the caller is admitted as a contributor. */
  async contributor(tenant: string, context: Context): Promise<TenantEntity> {
    await this.executor.run(this.write, { tenant }, context);
    return context.authorizedTenants.get(tenant)!;
  }

  /** The tenant, once the caller is admitted as a reader (401, 403 or 404 as everywhere else otherwise). */
  async reader(tenant: string, context: Context): Promise<TenantEntity> {
    await this.executor.run(this.read, { tenant }, context);
    return context.authorizedTenants.get(tenant)!;
  }
}

/**
 * Sends an async sequence of text chunks as the body. The first chunk is awaited before the status and the
 * headers (`setHeaders`) are set, so a failure at the start (a database error, a 404 found while reading) still
 * becomes a Result; a failure later can only cut the stream short.
 */
export async function sendChunks(ctx: KoaContext, chunks: AsyncIterable<string | Buffer>, setHeaders: () => void): Promise<void> {
  const iterator = chunks[Symbol.asyncIterator]();
  const first = await iterator.next();
  ctx.status = 200;
  setHeaders();
  ctx.body = Readable.from(
    (async function* () {
      if (!first.done) yield first.value;
      for (let next = await iterator.next(); !next.done; next = await iterator.next()) yield next.value;
    })(),
  );
}
