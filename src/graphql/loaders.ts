import DataLoader from 'dataloader';
import type { JsonObject } from '../aas/model/parse';
import type { TenantEntity } from '../management/tenants/tenant.entity';
import type { ConceptDescriptionService } from '../aas/concept-descriptions/concept-description.service';
import type { SubmodelService } from '../aas/submodels/submodel.service';

type ById = (tenant: TenantEntity, ids: readonly string[]) => Promise<Map<string, JsonObject>>;

/**
 * Per-request DataLoaders: every related load in one tick becomes one statement per kind and tenant, so a page
 * of 100 shells with their submodels costs a constant number of queries.
 */
export class Loaders {
  private readonly loaders = new Map<string, DataLoader<string, JsonObject | null>>();

  constructor(
    private readonly services: {
      submodels: Pick<SubmodelService, 'findMany' | 'heads'>;
      conceptDescriptions: Pick<ConceptDescriptionService, 'findMany'>;
    },
  ) {}

  submodel(tenant: TenantEntity): DataLoader<string, JsonObject | null> {
    return this.loader('submodel', tenant, (t, ids) => this.services.submodels.findMany(t, ids));
  }

  /** Submodels without their elements (the implicit descriptors of shells). */
  submodelHead(tenant: TenantEntity): DataLoader<string, JsonObject | null> {
    return this.loader('submodel-head', tenant, (t, ids) => this.services.submodels.heads(t, ids));
  }

  conceptDescription(tenant: TenantEntity): DataLoader<string, JsonObject | null> {
    return this.loader('concept-description', tenant, (t, ids) => this.services.conceptDescriptions.findMany(t, ids));
  }

  private loader(kind: string, tenant: TenantEntity, byId: ById): DataLoader<string, JsonObject | null> {
    const key = `${kind}:${tenant.id}`;
    let loader = this.loaders.get(key);
    if (!loader) {
      loader = new DataLoader(async (ids) => {
        const found = await byId(tenant, ids);
        return ids.map((id) => found.get(id) ?? null);
        // Batching without memoizing: a mutation document runs its fields in order, and each must see the
        // writes of the ones before it; a memo would hand out rows from before them.
      }, { maxBatchSize: 1000, cache: false });
      this.loaders.set(key, loader);
    }
    return loader;
  }
}
