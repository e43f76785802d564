import { Arg, Authorized, Ctx, Field, Float, InputType, Int, Mutation, ObjectType, Query, Resolver } from 'type-graphql';
import { DEFAULT_LIMIT } from '../common/cursor';
import { PagingMetadata } from '../aas/model/graphql-types';
import { Context, tenantOf } from '../graphql/context';

@ObjectType('FileAttribute')
export class FileAttributeType {
  @Field()
  key: string;

  @Field()
  value: string;
}

@ObjectType('StoredFile', {
  description:
    "A file of the tenant's file repository, named by its tfp (`file:/sphere/{tenant}/{documentId}/{fileName}`). Its content is up- and " +
    'downloaded at `{tenant_url}/sphere/api/v1.0/files/{tfp}`, never through GraphQL.',
})
export class StoredFileType {
  @Field({ description: 'The service file path: the File value or thumbnail path that names this file.' })
  tfp: string;

  @Field()
  fileName: string;

  @Field({ description: 'The media type captured at upload.' })
  contentType: string;

  @Field(() => Float, { description: 'Bytes.' })
  size: number;

  @Field({ description: 'SHA-256 of the content, lower-case hex.' })
  sha256: string;

  @Field({ description: 'Entity tag of the content (the download ETag).' })
  etag: string;

  @Field(() => String, { nullable: true })
  displayName: string | null;

  @Field(() => String, { nullable: true, description: 'A VDI 2770 document class id (01-01 ... 04-01).' })
  classification: string | null;

  @Field(() => [FileAttributeType])
  attributes: FileAttributeType[];

  @Field()
  createdAt: Date;

  @Field()
  updatedAt: Date;
}

@ObjectType('StoredFilePage')
export class StoredFilePage {
  @Field(() => [StoredFileType])
  result: StoredFileType[];

  @Field(() => PagingMetadata)
  pagingMetadata: PagingMetadata;
}

@InputType()
export class FileAttributeInput {
  @Field()
  key: string;

  @Field()
  value: string;
}

@InputType({ description: 'File metadata as set by clients; replaces what was set (fields not given are cleared).' })
export class FileMetadataInput {
  @Field(() => String, { nullable: true })
  displayName?: string | null;

  @Field(() => String, { nullable: true, description: 'A VDI 2770 document class id (01-01 ... 04-01).' })
  classification?: string | null;

  @Field(() => [FileAttributeInput], { nullable: true, description: 'At most 50; key and value at most 2048 characters each.' })
  attributes?: FileAttributeInput[] | null;
}

@InputType({ description: 'Files matching every field given.' })
export class FileFilterInput {
  @Field({ nullable: true })
  displayName?: string;

  @Field({ nullable: true, description: 'Files whose displayName starts with this text (case-sensitive; `%` and `_` are plain characters).' })
  displayNameStartsWith?: string;

  @Field({ nullable: true, description: 'Files whose displayName contains this text (case-sensitive).' })
  displayNameContains?: string;

  @Field({ nullable: true, description: 'A VDI 2770 class id (`02-04`); anything else is 400.' })
  classification?: string;

  @Field({ nullable: true, description: 'A media type, or a whole type as `image/*`.' })
  contentType?: string;

  @Field({ nullable: true })
  fileName?: string;

  @Field(() => [FileAttributeInput], { nullable: true, description: 'Attributes the file carries with exactly these values.' })
  attributes?: FileAttributeInput[];
}

@Resolver(() => StoredFileType)
export class FileResolver {
  @Authorized('reader')
  @Query(() => StoredFilePage, { description: 'Files of the tenant matching the filter, in upload order, paged.' })
  async files(
    @Ctx() ctx: Context,
    @Arg('tenant') tenant: string,
    @Arg('filter', () => FileFilterInput, { nullable: true }) filter: FileFilterInput | null,
    @Arg('limit', () => Int, { defaultValue: DEFAULT_LIMIT }) limit: number,
    @Arg('cursor', () => String, { nullable: true }) cursor: string | null,
  ) {
    const page = await ctx.services.files.list(tenantOf(ctx, tenant), { ...filter }, limit, cursor);
    return { result: page.items, pagingMetadata: { cursor: page.cursor } };
  }

  @Authorized('reader')
  @Query(() => StoredFileType, { description: 'The file a tfp names (400 for what is no tfp, 404 for another tenant\'s).' })
  file(@Ctx() ctx: Context, @Arg('tenant') tenant: string, @Arg('tfp') tfp: string) {
    return ctx.services.files.get(tenantOf(ctx, tenant), tfp);
  }

  @Authorized('contributor')
  @Query(() => StoredFileType, {
    nullable: true,
    description:
      'Whether the caller may write files in the tenant (contributor), and the file `tfp` names when given (404 when absent). ' +
      'The REST facade asks this before it streams an upload or a replacement into the file repository.',
  })
  fileWriteAccess(@Ctx() ctx: Context, @Arg('tenant') tenant: string, @Arg('tfp', () => String, { nullable: true }) tfp: string | null) {
    return tfp === null ? null : ctx.services.files.get(tenantOf(ctx, tenant), tfp);
  }

  @Authorized('contributor')
  @Mutation(() => StoredFileType, { description: "Replaces a file's metadata (displayName, classification, attributes)." })
  updateFileMetadata(
    @Ctx() ctx: Context,
    @Arg('tenant') tenant: string,
    @Arg('tfp') tfp: string,
    @Arg('metadata', () => FileMetadataInput) metadata: FileMetadataInput,
  ) {
    return ctx.services.files.updateMetadata(tenantOf(ctx, tenant), tfp, { ...metadata });
  }

  @Authorized('contributor')
  @Mutation(() => Boolean, { description: 'Deletes a file and its content for good; references to it are not checked.' })
  async deleteFile(@Ctx() ctx: Context, @Arg('tenant') tenant: string, @Arg('tfp') tfp: string): Promise<boolean> {
    await ctx.services.files.delete(tenantOf(ctx, tenant), tfp);
    return true;
  }
}
