import type { Context } from '../../graphql/context';
import type { TenantEntity } from '../../management/tenants/tenant.entity';
import type { SemanticEquivalence } from '../query/query.service';
import { SemanticMatchingArg } from './semantic.types';

/** The equivalence a query or search matches semantic ids by: the tenant's, when `equivalent` is asked for; else none (as written). */
export function equivalenceOf(ctx: Context, tenant: TenantEntity, matching: SemanticMatchingArg | null | undefined): SemanticEquivalence | undefined {
  return matching === SemanticMatchingArg.equivalent ? (ids) => ctx.services.semantics.equivalentKeys(tenant, ids) : undefined;
}

export const SEMANTIC_ID_MATCHING_DESCRIPTION =
  'How `$eq` on a semanticId in the query matches: exact (default), as written; equivalent, by the semantic connector\'s equivalence (docs/semantic-connector.md).';
