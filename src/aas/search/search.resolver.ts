import { GraphQLJSONObject } from 'graphql-scalars';
import { Arg, Authorized, Ctx, Extensions, Field, Int, ObjectType, Query, Resolver } from 'type-graphql';
import { DEFAULT_LIMIT } from '../../common/cursor';
import { Context, tenantOf } from '../../graphql/context';
import { PagingMetadata } from '../model/graphql-types';
import { JsonObject } from '../model/parse';
import { Shell } from '../shells/shell.types';
import { SemanticMatchingArg } from '../semantics/semantic.types';
import { SEMANTIC_ID_MATCHING_DESCRIPTION, equivalenceOf } from '../semantics/equivalence';
import { versionOf } from '../versions/view';
import { SEARCH_INDEXES } from './indexes';

@ObjectType({ description: 'A shell that search found, with the submodels that made it match.' })
export class SearchHit {
  @Field()
  id: string;

  @Field(() => Shell, { nullable: true, description: 'The shell; null when the search selects ids only ("$select": "id").' })
  shell?: Shell;

  @Field(() => [String], { description: "The ids of the shell's submodels of the index's template that satisfy the condition." })
  submodelIds: string[];
}

@ObjectType()
export class SearchPage {
  @Field(() => [SearchHit])
  result: SearchHit[];

  @Field(() => PagingMetadata)
  pagingMetadata: PagingMetadata;
}

@ObjectType({ description: 'A search index: what it holds and the members of its simple condition.' })
export class SearchIndexInfo {
  @Field()
  name: string;

  @Field()
  description: string;

  @Field(() => [String], { description: 'The semanticIds of the submodels it reads (first key).' })
  submodelSemanticIds: string[];

  @Field(() => [String], { description: 'The members a simple condition of the index may have.' })
  members: string[];
}

@Resolver()
export class SearchResolver {
  @Authorized('reader')
  @Query(() => [SearchIndexInfo], { description: 'The search indexes `search` takes (README, "Search indexes").' })
  searchIndexes(@Ctx() ctx: Context, @Arg('tenant') tenant: string): SearchIndexInfo[] {
    tenantOf(ctx, tenant);
    return SEARCH_INDEXES.map(({ name, description, submodelSemanticIds, members }) => ({ name, description, submodelSemanticIds: [...submodelSemanticIds], members: [...members] }));
  }

  @Authorized('reader')
  // Expensive work in either form (src/common/operation-demands.ts): it takes a share of the pool (WORK_LIMIT_*).
  @Extensions({ expensive: true })
  @Query(() => SearchPage, {
    description:
      'POST /search: the shells that reference a submodel of the index satisfying the condition, in insertion order, paged. ' +
      'Indexes: shell-classifications, technical-properties (README, "Search indexes"). Give `query` (the full form: an AAS Query ' +
      'Language query over the index\'s submodels, $sm and $sme fields) or the simple form: `condition` or `conditions` (all must hold) ' +
      'with `select: "id"` for ids only.',
  })
  async search(
    @Ctx() ctx: Context,
    @Arg('tenant') tenant: string,
    @Arg('index') index: string,
    @Arg('query', () => GraphQLJSONObject, { nullable: true }) query: JsonObject | null,
    @Arg('condition', () => GraphQLJSONObject, { nullable: true }) condition: JsonObject | null,
    @Arg('conditions', () => [GraphQLJSONObject], { nullable: true }) conditions: JsonObject[] | null,
    @Arg('select', () => String, { nullable: true }) select: string | null,
    @Arg('limit', () => Int, { defaultValue: DEFAULT_LIMIT }) limit: number,
    @Arg('cursor', () => String, { nullable: true }) cursor: string | null,
    @Arg('semanticIdMatching', () => SemanticMatchingArg, { defaultValue: SemanticMatchingArg.exact, description: SEMANTIC_ID_MATCHING_DESCRIPTION }) semanticIdMatching: SemanticMatchingArg,
  ): Promise<SearchPage> {
    const page = await ctx.services.search.search(tenantOf(ctx, tenant), { index, query, condition, conditions, select }, limit, cursor, equivalenceOf(ctx, tenantOf(ctx, tenant), semanticIdMatching), versionOf(ctx, null));
    return {
      result: page.items.map((hit) => ({ id: hit.id, shell: hit.shell as unknown as Shell | undefined, submodelIds: hit.submodelIds })),
      pagingMetadata: { cursor: page.cursor },
    };
  }
}
