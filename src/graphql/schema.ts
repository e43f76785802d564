import 'reflect-metadata';
import { GraphQLSchema } from 'graphql';
import { buildSchema } from 'type-graphql';
import { DescriptionResolver } from '../aas/description/description.resolver';
import { modelJsonResolvers } from '../aas/model/graphql-types';
import { ShellResolver } from '../aas/shells/shell.resolver';
import { shellJsonResolvers } from '../aas/shells/shell.types';
import { authChecker } from '../auth/policy';
import { TenantResolver } from '../management/tenants/tenant.resolver';

let built: Promise<GraphQLSchema> | undefined;

/** The one GraphQL schema: served at /graphql and executed in-process by the REST facade. */
export function buildAppSchema(): Promise<GraphQLSchema> {
  built ??= buildSchema({
    resolvers: [
      ShellResolver,
      DescriptionResolver,
      TenantResolver,
      ...modelJsonResolvers,
      ...shellJsonResolvers,
    ] as unknown as [Function, ...Function[]],
    authChecker,
    authMode: 'error',
    validate: false,
  });
  return built;
}
