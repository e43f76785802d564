import { GraphQLScalarType, Kind } from 'graphql';
import { GraphQLJSONObject } from 'graphql-scalars';
import { Arg, Authorized, Ctx, Extensions, Field, Float, Mutation, ObjectType, Query, Resolver } from 'type-graphql';
import { Context, tenantOf } from '../graphql/context';
import { dccBytesOf } from './dcc.service';

@ObjectType('DccSpecificAssetId', { description: "An identification of a calibrated item, offered as a specific asset id: name is its issuer (manufacturer, calibrationLaboratory, customer, owner, other)." })
export class DccSpecificAssetIdType {
  @Field()
  name: string;

  @Field()
  value: string;
}

@ObjectType('DccFile', { description: 'A file of the conversion: the original DCC, or a document embedded in it (base64), and the File element that holds its tfp.' })
export class DccFileType {
  @Field({ description: '`original` or `document`.' })
  role: string;

  @Field({ description: 'The idShort path of its File element in the submodel.' })
  idShortPath: string;

  @Field()
  fileName: string;

  @Field()
  contentType: string;

  @Field(() => Float, { description: 'Bytes.' })
  size: number;

  @Field(() => String, { nullable: true, description: 'Its tfp in the file repository; null in a preview.' })
  tfp: string | null;
}

@ObjectType('DccConversion', { description: 'A DCC converted into a submodel (experimental; docs/dcc.md).' })
export class DccConversionType {
  @Field()
  submodelId: string;

  @Field({ description: "The DCC's schemaVersion." })
  schemaVersion: string;

  @Field({ description: 'administrativeData/coreData/uniqueIdentifier.' })
  uniqueIdentifier: string;

  @Field(() => GraphQLJSONObject, { description: 'The submodel in the AAS JSON serialization: as it would be stored (preview) or as it was (store).' })
  submodel: Record<string, unknown>;

  @Field(() => [String], { description: 'What the conversion left out or could not check, and a mismatch with the named shell.' })
  warnings: string[];

  @Field(() => [DccSpecificAssetIdType], { description: "The calibrated items' identifications, for the shell of the instrument and for discovery." })
  specificAssetIds: DccSpecificAssetIdType[];

  @Field({ description: 'Whether the DCC carries an XML signature (ds:Signature). It is not checked.' })
  signaturePresent: boolean;

  @Field({ description: 'Whether the submodel and its files were stored.' })
  stored: boolean;

  @Field(() => String, { nullable: true, description: 'The shell that now references the submodel.' })
  referencedFrom: string | null;

  @Field(() => [DccSpecificAssetIdType], { description: 'The specific asset ids added to the shell (addAssetIds); in a preview, those that would be.' })
  assetIdsAdded: DccSpecificAssetIdType[];

  @Field(() => [DccFileType])
  files: DccFileType[];
}

const DCC_ARGUMENT = 'The DCC XML document (its text; the REST route takes the bytes as they are).';

/**
 * A whole XML document as text. Not a String: String arguments are held to 16 KiB (src/graphql/limits.ts), and a
 * DCC is a document, bounded by the request body limit and by the conversion's own (MAX_DCC_BYTES).
 */
export const XmlDocumentScalar = new GraphQLScalarType({
  name: 'XmlDocument',
  description: 'An XML document, as text.',
  serialize: (value) => value,
  parseValue: (value) => {
    if (typeof value !== 'string') throw new TypeError('An XmlDocument is a string.');
    return value;
  },
  parseLiteral: (ast) => {
    if (ast.kind !== Kind.STRING) throw new TypeError('An XmlDocument is a string.');
    return ast.value;
  },
});

@Resolver()
export class DccResolver {
  @Authorized('reader')
  // Expensive work: the caller takes a share of the pool (src/common/work-shares.ts), as the REST route does.
  @Extensions({ expensive: true })
  @Query(() => DccConversionType, {
    description: 'Converts a DCC into a submodel and answers it with the warnings, storing nothing (experimental). A document that is no DCC, or breaks its schema: 400.',
  })
  dccConversionPreview(
    @Ctx() ctx: Context,
    @Arg('tenant') tenant: string,
    @Arg('dcc', () => XmlDocumentScalar, { description: DCC_ARGUMENT }) dcc: string,
    @Arg('shellId', () => String, { nullable: true, description: 'A shell whose asset ids are compared with the calibrated items.' }) shellId: string | null,
    @Arg('submodelId', () => String, { nullable: true, description: 'The id the submodel gets; default urn:dcc:{uniqueIdentifier}.' }) submodelId: string | null,
    @Arg('addAssetIds', () => Boolean, { nullable: true, description: "Add the calibrated items' identifications the shell lacks to its specific asset ids (needs shellId)." }) addAssetIds: boolean | null,
  ) {
    return ctx.services.dcc.preview(tenantOf(ctx, tenant), dccBytesOf(dcc), { shellId, submodelId, addAssetIds });
  }

  @Authorized('contributor')
  @Extensions({ expensive: true })
  @Mutation(() => DccConversionType, {
    description:
      'Converts a DCC into a submodel of the tenant and stores it (experimental): the original DCC and its embedded documents go to the file ' +
      'repository, File elements hold their tfps; with shellId, the shell references the submodel. All or nothing.',
  })
  convertDcc(
    @Ctx() ctx: Context,
    @Arg('tenant') tenant: string,
    @Arg('dcc', () => XmlDocumentScalar, { description: DCC_ARGUMENT }) dcc: string,
    @Arg('shellId', () => String, { nullable: true, description: 'A shell that gets a reference to the submodel; its asset ids are compared with the calibrated items.' }) shellId: string | null,
    @Arg('submodelId', () => String, { nullable: true, description: 'The id the submodel gets; default urn:dcc:{uniqueIdentifier}.' }) submodelId: string | null,
    @Arg('addAssetIds', () => Boolean, { nullable: true, description: "Add the calibrated items' identifications the shell lacks to its specific asset ids (needs shellId)." }) addAssetIds: boolean | null,
  ) {
    return ctx.services.dcc.store(tenantOf(ctx, tenant), dccBytesOf(dcc), { shellId, submodelId, addAssetIds });
  }
}
