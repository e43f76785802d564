import { DataSource } from 'typeorm';
import { boundedRead } from '../../db/bounded-read';
import { TenantEntity } from '../../management/tenants/tenant.entity';
import type { ConceptDescriptionService } from '../concept-descriptions/concept-description.service';
import { JsonObject } from '../model/parse';
import type { ShellService } from '../shells/shell.service';
import { Page, keysetQuery, pageOf } from '../store/identifiable-store';
import type { SubmodelService } from '../submodels/submodel.service';
import type { AasVersion } from '../versions';
import type { Query, QueryTarget } from './ast';
import { parseQuery } from './parse';
import { checkElementConditions, semanticIdLiterals, toSql } from './sql';

/** The repositories the query endpoints serve (descriptors come with the registries' queries). */
export type RepositoryTarget = Extract<QueryTarget, 'shells' | 'submodels' | 'conceptDescriptions'>;

export interface QueryOptions {
  /** How long the statement that selects a page may run (QUERY_TIMEOUT_MS); beyond it the query is refused with 400. */
  timeoutMs: number;
  /** How many `$sme` fields one query may read (QUERY_MAX_ELEMENT_CONDITIONS); more: 400 before the database is asked. 0: no bound. */
  maxElementConditions?: number;
}

/**
 * Equivalence keys of semantic ids, in order (the semantic connector's `equivalentKeys` for the caller's tenant): given,
 * `$eq` on a semanticId matches by equivalence (docs/semantic-connector.md); absent, as written.
 */
export type SemanticEquivalence = (ids: string[]) => Promise<string[][]>;

/** The `SqlOptions.semanticKeys` of a query: each string it compares a semanticId with, and its equivalence keys. */
export async function semanticKeysOf(query: Query, equivalence: SemanticEquivalence | undefined): Promise<Map<string, string[]> | undefined> {
  if (!equivalence) return undefined;
  const literals = semanticIdLiterals(query.condition);
  const keys = literals.length ? await equivalence(literals) : [];
  return new Map(literals.map((literal, i) => [literal, keys[i]]));
}

/**
 * The AAS Query Language over a tenant's shells, submodels or concept descriptions (IDTA-01002-3): the query is
 * parsed (400 naming the offending part), translated into one parameterized condition over the stored documents
 * and run as a keyset page in insertion order under a statement timeout (`boundedRead`: a timeout, or a condition
 * PostgreSQL cannot evaluate, is a 400). The page's documents are then read by id through their owning service
 * (under the request's read budget), in page order.
 */
export class QueryService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly owners: { shells: ShellService; submodels: SubmodelService; conceptDescriptions: ConceptDescriptionService },
    private readonly options: QueryOptions,
  ) {}

  /** The identifiers of a page of the answer, whatever `$select` says. */
  async ids(tenant: TenantEntity, target: RepositoryTarget, body: unknown, limit: number, cursor?: string | null, equivalence?: SemanticEquivalence): Promise<Page<string>> {
    const page = await this.page(tenant, target, parseQuery(body), limit, cursor, equivalence);
    return { items: page.items.map((row) => row.id), cursor: page.cursor };
  }

  /**
   * The documents of a page of the answer, whatever `$select` says (GraphQL clients select the fields they want), as
   * a reader of metamodel `view` sees them: mapped down for V3.0 where they need V3.1, as stored for V3.1.
   */
  async objects(
    tenant: TenantEntity,
    target: RepositoryTarget,
    body: unknown,
    limit: number,
    cursor?: string | null,
    equivalence?: SemanticEquivalence,
    view: AasVersion = '3.0',
  ): Promise<Page<JsonObject>> {
    return this.documents(tenant, target, await this.page(tenant, target, parseQuery(body), limit, cursor, equivalence), view);
  }

  /** One keyset page of the rows that satisfy the query: `d.seq > cursor`, in `seq` order, one row more than `limit`. */
  private async page(tenant: TenantEntity, target: RepositoryTarget, query: Query, limit: number, cursor?: string | null, equivalence?: SemanticEquivalence): Promise<Page<{ seq: string; id: string }>> {
    // Refused before the cursor's list name and the semantic keys are worked out for it.
    checkElementConditions(query, this.options.maxElementConditions);
    // A cursor of an exact query does not continue the equivalent one, nor the other way round.
    const keyset = keysetQuery(`query:${target}`, [['d.tenant_id = ?', tenant.id]], [], limit, cursor, query.condition, ...(equivalence ? ['equivalent'] : []));
    const semanticKeys = await semanticKeysOf(query, equivalence);
    const condition = toSql(query, target, { doc: 'd.doc', firstParam: keyset.params.length + 1, row: 'd', tenant: '$1', semanticKeys, maxElementConditions: this.options.maxElementConditions });
    // keysetQuery writes the cursor's bound as `seq > $n`: unambiguous, `d` is the only row source of this level.
    const sql = `SELECT d.seq, d.id FROM ${condition.table} d WHERE ${keyset.where} AND (${condition.where}) ORDER BY d.seq LIMIT ${keyset.limitParam}`;
    const rows = await boundedRead<{ seq: string; id: string }>(this.dataSource, sql, [...keyset.params, ...condition.params], this.options.timeoutMs);
    return pageOf(keyset.list, rows, limit, (row) => Number(row.seq));
  }

  private async documents(tenant: TenantEntity, target: RepositoryTarget, page: Page<{ id: string }>, view: AasVersion): Promise<Page<JsonObject>> {
    const ids = page.items.map((row) => row.id);
    const found = ids.length ? await this.owners[target].findMany(tenant, ids, view) : new Map<string, JsonObject>();
    // A document deleted between the two reads is left out; the cursor still names the page's last row.
    return { items: ids.flatMap((id): JsonObject[] => (found.has(id) ? [found.get(id)!] : [])), cursor: page.cursor };
  }
}
