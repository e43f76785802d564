import type { AasVersion } from '../versions';
import { AAS_VERSION_ARGUMENT, AasVersionArg } from '../versions/graphql-types';
import { GraphQLJSON, GraphQLJSONObject } from 'graphql-scalars';
import { Arg, Authorized, Ctx, Field, FieldResolver, InputType, Int, Mutation, Query, Resolver, Root } from 'type-graphql';
import { DEFAULT_LIMIT } from '../../common/cursor';
import { Context, tenantOf } from '../../graphql/context';
import { JsonObject } from '../model/parse';
import { referenceKeyOf } from '../model/reference-keys';
import { QUERY_ARGUMENT_DESCRIPTION, usesQuery } from '../query/query.resolver';
import { IdentifiableJson } from '../store/identifiable-json';
import { seenAs, versionOf, viewOf, viewedText } from '../versions/view';
import { originOf } from '../store/identifiable-store';
import { SemanticMatchingArg } from '../semantics/semantic.types';
import { SEMANTIC_ID_MATCHING_DESCRIPTION, equivalenceOf } from '../semantics/equivalence';
import { ConceptDescription, ConceptDescriptionPage } from './concept-description.types';

@InputType()
export class ConceptDescriptionFilterInput {
  @Field({ nullable: true })
  idShort?: string;

  @Field(() => GraphQLJSONObject, { nullable: true, description: 'A Reference its `isCaseOf` contains (type and keys equal).' })
  isCaseOf?: JsonObject;

  @Field(() => GraphQLJSONObject, { nullable: true, description: 'A Reference naming one of its embedded data specifications.' })
  dataSpecificationRef?: JsonObject;
}

@Resolver(() => ConceptDescription)
export class ConceptDescriptionResolver {
  @FieldResolver(() => String, { nullable: true, description: 'The entity tag, for If-Match.' })
  etag(@Root() cd: JsonObject): string | undefined {
    return originOf(cd)?.etag;
  }

  @Authorized('reader')
  @Query(() => ConceptDescriptionPage, { description: 'Concept descriptions of the tenant, in insertion order, paged.' })
  async conceptDescriptions(
    @Ctx() ctx: Context,
    @Arg('tenant') tenant: string,
    @Arg('filter', () => ConceptDescriptionFilterInput, { nullable: true }) filter: ConceptDescriptionFilterInput | null,
    @Arg('limit', () => Int, { defaultValue: DEFAULT_LIMIT }) limit: number,
    @Arg('cursor', () => String, { nullable: true }) cursor: string | null,
    @Arg('query', () => GraphQLJSON, { nullable: true, description: QUERY_ARGUMENT_DESCRIPTION }) query: unknown,
    @Arg('semanticIdMatching', () => SemanticMatchingArg, { defaultValue: SemanticMatchingArg.exact, description: SEMANTIC_ID_MATCHING_DESCRIPTION }) semanticIdMatching: SemanticMatchingArg,
  ) {
    if (usesQuery(query, filter)) {
      const page = await ctx.services.query.objects(tenantOf(ctx, tenant), 'conceptDescriptions', query, limit, cursor, equivalenceOf(ctx, tenantOf(ctx, tenant), semanticIdMatching), versionOf(ctx, null));
      return { result: page.items, pagingMetadata: { cursor: page.cursor } };
    }
    const page = await ctx.services.conceptDescriptions.list(
      tenantOf(ctx, tenant),
      {
        idShort: filter?.idShort,
        isCaseOfKey: referenceKeyOf(filter?.isCaseOf, 'isCaseOf'),
        dataSpecificationKey: referenceKeyOf(filter?.dataSpecificationRef, 'dataSpecificationRef'),
      },
      limit,
      cursor,
    );
    return { result: page.items, pagingMetadata: { cursor: page.cursor } };
  }

  @Authorized('reader')
  @Query(() => ConceptDescription)
  async conceptDescription(@Ctx() ctx: Context, @Arg('tenant') tenant: string, @Arg('id') id: string, @Arg('aasVersion', () => AasVersionArg, { nullable: true, description: AAS_VERSION_ARGUMENT }) aasVersion: AasVersion | null) {
    return seenAs(ctx, aasVersion, await ctx.services.conceptDescriptions.get(tenantOf(ctx, tenant), id, versionOf(ctx, aasVersion)));
  }

  @Authorized('reader')
  @Query(() => IdentifiableJson, { description: 'One concept description as AAS JSON text, as stored (from the read cache when it holds it).' })
  async conceptDescriptionJson(@Ctx() ctx: Context, @Arg('tenant') tenant: string, @Arg('id') id: string, @Arg('aasVersion', () => AasVersionArg, { nullable: true, description: AAS_VERSION_ARGUMENT }) aasVersion: AasVersion | null): Promise<IdentifiableJson> {
    return viewedText(viewOf(ctx, aasVersion), await ctx.services.conceptDescriptions.getText(tenantOf(ctx, tenant), id, versionOf(ctx, aasVersion)));
  }

  @Authorized('contributor')
  @Mutation(() => ConceptDescription, { description: 'Creates a concept description from its AAS JSON; the id must be new.' })
  async createConceptDescription(
    @Ctx() ctx: Context,
    @Arg('tenant') tenant: string,
    @Arg('conceptDescription', () => GraphQLJSONObject) conceptDescription: JsonObject,
    @Arg('aasVersion', () => AasVersionArg, { nullable: true, description: AAS_VERSION_ARGUMENT }) aasVersion: AasVersion | null,
  ) {
    return seenAs(ctx, aasVersion, await ctx.services.conceptDescriptions.create(tenantOf(ctx, tenant), conceptDescription, { aasVersion: versionOf(ctx, aasVersion) }));
  }

  @Authorized('contributor')
  @Mutation(() => ConceptDescription, { description: 'Replaces a concept description; the id in the body must equal `id`.' })
  async replaceConceptDescription(
    @Ctx() ctx: Context,
    @Arg('tenant') tenant: string,
    @Arg('id') id: string,
    @Arg('conceptDescription', () => GraphQLJSONObject) conceptDescription: JsonObject,
    @Arg('ifMatch', () => String, { nullable: true }) ifMatch: string | null,
    @Arg('aasVersion', () => AasVersionArg, { nullable: true, description: AAS_VERSION_ARGUMENT }) aasVersion: AasVersion | null,
  ) {
    return seenAs(ctx, aasVersion, await ctx.services.conceptDescriptions.replace(tenantOf(ctx, tenant), id, conceptDescription, { ifMatch, aasVersion: versionOf(ctx, aasVersion) }));
  }

  @Authorized('contributor')
  @Mutation(() => Boolean)
  async deleteConceptDescription(
    @Ctx() ctx: Context,
    @Arg('tenant') tenant: string,
    @Arg('id') id: string,
    @Arg('ifMatch', () => String, { nullable: true }) ifMatch: string | null,
  ): Promise<boolean> {
    await ctx.services.conceptDescriptions.delete(tenantOf(ctx, tenant), id, { ifMatch });
    return true;
  }
}
