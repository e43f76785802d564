import { GraphQLJSON } from 'graphql-scalars';
import { Arg, Authorized, Ctx, Field, Int, ObjectType, Query, Resolver, registerEnumType } from 'type-graphql';
import { DEFAULT_LIMIT } from '../../common/cursor';
import { Context, tenantOf } from '../../graphql/context';
import { badRequest } from '../../graphql/errors';
import { PagingMetadata } from '../model/graphql-types';
import { SemanticMatchingArg } from '../semantics/semantic.types';
import { SEMANTIC_ID_MATCHING_DESCRIPTION, equivalenceOf } from '../semantics/equivalence';
import type { RepositoryTarget } from './query.service';

export enum QueryTargetArg {
  shells = 'shells',
  submodels = 'submodels',
  conceptDescriptions = 'conceptDescriptions',
}
registerEnumType(QueryTargetArg, { name: 'QueryTarget', description: 'What an AAS Query Language query selects from.' });

@ObjectType({ description: 'A page of identifiers (an AAS query with `$select: "id"`).' })
export class IdentifierPage {
  @Field(() => [String])
  result: string[];

  @Field(() => PagingMetadata)
  pagingMetadata: PagingMetadata;
}

/** How the `query` argument of the lists is described in the schema. */
export const QUERY_ARGUMENT_DESCRIPTION =
  'An AAS Query Language query (IDTA-01002-3, JSON: `{"$condition": {...}}`): only the objects it selects, in insertion order. ' +
  'Not combined with `filter` (400: express the filter as conditions of the query). `$select: "id"` does not change this answer (select `id`); ' +
  '`queryIds` answers identifiers without reading the objects.';

/**
 * Whether a list field runs `query` instead of its filter: the two are not combined (the filter's conditions are
 * columns of the list's own, the query's conditions the documents'), so giving both is a 400 saying so.
 */
export function usesQuery(query: unknown, filter: object | null | undefined): boolean {
  if (query == null) return false;
  if (filter != null && Object.values(filter).some((v) => (Array.isArray(v) ? v.length > 0 : v != null))) {
    throw badRequest('Give either `filter` or `query`, not both: express the filter as conditions of the query (e.g. {"$eq": [{"$field": "$aas#idShort"}, {"$strVal": "..."}]}).');
  }
  return true;
}

@Resolver()
export class QueryResolver {
  @Authorized('reader')
  @Query(() => IdentifierPage, {
    description:
      'The identifiers of the shells, submodels or concept descriptions an AAS Query Language query (IDTA-01002-3) selects, in insertion ' +
      'order, paged (`$select: "id"` of the query endpoints; the query may say so or not). The objects themselves: the `query` argument of ' +
      '`shells`, `submodels` and `conceptDescriptions`.',
  })
  async queryIds(
    @Ctx() ctx: Context,
    @Arg('tenant') tenant: string,
    @Arg('target', () => QueryTargetArg) target: QueryTargetArg,
    @Arg('query', () => GraphQLJSON, { description: 'The query: `{"$select"?: "id", "$condition": {...}}`.' }) query: unknown,
    @Arg('limit', () => Int, { defaultValue: DEFAULT_LIMIT }) limit: number,
    @Arg('cursor', () => String, { nullable: true }) cursor: string | null,
    @Arg('semanticIdMatching', () => SemanticMatchingArg, { defaultValue: SemanticMatchingArg.exact, description: SEMANTIC_ID_MATCHING_DESCRIPTION }) semanticIdMatching: SemanticMatchingArg,
  ): Promise<IdentifierPage> {
    const page = await ctx.services.query.ids(tenantOf(ctx, tenant), target as RepositoryTarget, query, limit, cursor, equivalenceOf(ctx, tenantOf(ctx, tenant), semanticIdMatching));
    return { result: page.items, pagingMetadata: { cursor: page.cursor } };
  }
}
