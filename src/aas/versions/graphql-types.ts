import { registerEnumType } from 'type-graphql';

/** The versions of the AAS metamodel, as GraphQL names them (their values are `AasVersion`'s). */
export enum AasVersionArg {
  V3_0 = '3.0',
  V3_1 = '3.1',
}

registerEnumType(AasVersionArg, {
  name: 'AasVersion',
  description:
    'A version of the AAS metamodel. Content is stored as written (V3.0 or V3.1); V3_1 reads it as stored and writes are verified with V3.1 ' +
    'constraints; V3_0 (the default on /graphql) reads what needs V3.1 mapped down by the documented rules and a V3.0 write keeps the V3.1 parts it did not touch.',
  valuesConfig: {
    V3_0: { description: 'AAS V3.0 (IDTA-01001-3-0).' },
    V3_1: { description: 'AAS V3.1 (IDTA-01001-3-1).' },
  },
});

/** The `aasVersion` argument's description. */
export const AAS_VERSION_ARGUMENT = 'The version of the AAS metamodel the document is read or written in. Default: V3_0 on /graphql; through the REST API, the version of its path.';
