import type { DataSource } from 'typeorm';
import { checkLimit, cursorList, decodeCursor, encodeCursor } from '../../common/cursor';
import { etagOf } from '../../common/etag';
import { boundedRead } from '../../db/bounded-read';
import { badRequest } from '../../graphql/errors';
import type { TenantEntity } from '../../management/tenants/tenant.entity';
import type { JsonObject } from '../model/parse';
import type { Condition, Field, Operand, Query, QueryTarget, Root } from '../query/ast';
import { parseQuery } from '../query/parse';
import { toSql } from '../query/sql';
import type { ShellService } from '../shells/shell.service';
import { referencedSubmodelIds } from '../shells/shell.service';
import type { Page } from '../store/identifiable-store';
import type { SubmodelService } from '../submodels/submodel.service';
import type { AasVersion } from '../versions';
import { AAS_INTERFACE, SUBMODEL_INTERFACE, type ImplicitRegistryService } from './implicit.service';
import type { RegistryInstanceEntity } from './registry.entities';
import type { Stored } from './stored';

/**
 * The AAS Query Language over registries (AAS API V3.1, `POST /query/shell-descriptors` and
 * `POST /query/submodel-descriptors`; IDTA-01002-3 roots `$aasdesc` and `$smdesc`): one SQL statement per page,
 * keyset-paged, the condition translated by query/sql.ts.
 *
 * - An explicit AAS registry evaluates `$aasdesc` on each stored shell descriptor and `$smdesc` on each submodel
 *   descriptor inside them (every one as registered: a submodel registered under two shell descriptors is two
 *   descriptors), in registration order.
 * - The implicit registries have no stored descriptors: the attributes a query can address are derived in SQL
 *   from the shell (and the heads of the submodels it references) or the submodel head exactly as
 *   implicit.service.ts derives them, endpoints included, and the condition is evaluated on that. Only head
 *   attributes of `submodels.doc` are read (id, idShort, semanticId), never its elements. The answers are built
 *   by the implicit registry's own descriptor builders.
 *
 * A query of the other kind of object (`$aas`, `$sm`, `$sme`, `$cd`, or `$smdesc` in a shell descriptor query)
 * is a 400 naming the field.
 */
export class DescriptorQueryService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly shells: ShellService,
    private readonly submodels: SubmodelService,
    private readonly implicit: ImplicitRegistryService,
    /** `timeoutMs`: how long the statement of one page may run (QUERY_TIMEOUT_MS, as for the repositories' queries). */
    private readonly options: { timeoutMs: number },
  ) {}

  /** Shell descriptors meeting a `$aasdesc` query: of `instance`, or (null) of the tenant's implicit registry. */
  async shellDescriptors(tenant: TenantEntity, instance: RegistryInstanceEntity | null, input: unknown, limit: number, cursor?: string | null, view: AasVersion = '3.0'): Promise<QueryPage> {
    const query = descriptorQuery(input, 'shellDescriptors', limit);
    const page = instance ? await this.explicitShells(tenant, instance, query, limit, cursor) : await this.implicitShells(tenant, query, limit, cursor, view);
    return { ...page, select: query.select };
  }

  /** Submodel descriptors meeting a `$smdesc` query: those inside `instance`'s shell descriptors, or (null) the implicit submodel registry's. */
  async submodelDescriptors(tenant: TenantEntity, instance: RegistryInstanceEntity | null, input: unknown, limit: number, cursor?: string | null): Promise<QueryPage> {
    const query = descriptorQuery(input, 'submodelDescriptors', limit);
    const page = instance ? await this.explicitSubmodels(tenant, instance, query, limit, cursor) : await this.implicitSubmodels(tenant, query, limit, cursor);
    return { ...page, select: query.select };
  }

  private async explicitShells(tenant: TenantEntity, instance: RegistryInstanceEntity, query: Query, limit: number, cursor?: string | null): Promise<Page<Stored>> {
    const list = cursorList('query-shell-descriptors', tenant.id, instance.id, query.condition);
    const sql = new Statement([instance.id, tenant.id]);
    const after = cursor == null ? '' : ` AND d.seq > ${sql.param(seqAfter(list, cursor))}`;
    const where = sql.condition(query, 'shellDescriptors', 'd.doc');
    const rows = await this.read<{ seq: string; version: number; doc: JsonObject }>(
      `SELECT d.seq, d.version, d.doc FROM shell_descriptors d
        WHERE d.instance_id = $1 AND d.tenant_id = $2${after} AND ${where} ORDER BY d.seq LIMIT ${sql.param(limit + 1)}`,
      sql.params,
    );
    return paged(list, rows, limit, (row) => Number(row.seq), (row) => ({ json: row.doc, etag: etagOf(row.seq, row.version) }));
  }

  private async explicitSubmodels(tenant: TenantEntity, instance: RegistryInstanceEntity, query: Query, limit: number, cursor?: string | null): Promise<Page<Stored>> {
    const list = cursorList('query-submodel-descriptors', tenant.id, instance.id, query.condition);
    const sql = new Statement([instance.id, tenant.id]);
    let after = '';
    if (cursor != null) {
      const [seq, ord] = positionAfter(list, cursor);
      after = ` AND (d.seq, e.ord) > (${sql.param(seq)}::bigint, ${sql.param(ord)}::bigint)`;
    }
    const where = sql.condition(query, 'submodelDescriptors', 'e.sm');
    const rows = await this.read<{ seq: string; version: number; ord: string; sm: JsonObject }>(
      `SELECT d.seq, d.version, e.ord, e.sm FROM shell_descriptors d
        CROSS JOIN LATERAL jsonb_array_elements(d.doc->'submodelDescriptors') WITH ORDINALITY AS e(sm, ord)
        WHERE d.instance_id = $1 AND d.tenant_id = $2${after} AND ${where} ORDER BY d.seq, e.ord LIMIT ${sql.param(limit + 1)}`,
      sql.params,
    );
    // As under its shell descriptor, a submodel descriptor carries the shell descriptor's entity tag.
    return paged(list, rows, limit, (row) => `${row.seq}:${row.ord}`, (row) => ({ json: row.sm, etag: etagOf(row.seq, row.version) }));
  }

  /** `view`: the metamodel version the shells are read in, as `ImplicitRegistryService.shellDescriptors` reads them. */
  private async implicitShells(tenant: TenantEntity, query: Query, limit: number, cursor: string | null | undefined, view: AasVersion): Promise<Page<Stored>> {
    const page = await this.implicitIds(tenant, query, limit, cursor, {
      list: 'query-implicit-shell-descriptors',
      target: 'shellDescriptors',
      table: 'shells',
      alias: 's',
      derived: (sql, apiUrl, attributes, tenantParam) => implicitShellDescriptor(sql, apiUrl, attributes, tenantParam),
    });
    const docs = await this.shells.findMany(tenant, page.items, view);
    const found = page.items.flatMap((id): JsonObject[] => {
      const doc = docs.get(id);
      return doc ? [doc] : [];
    });
    const heads = await this.submodels.heads(tenant, [...new Set(found.flatMap(referencedSubmodelIds))]);
    return { items: found.map((shell) => this.implicit.describeShell(tenant, shell, heads)), cursor: page.cursor };
  }

  private async implicitSubmodels(tenant: TenantEntity, query: Query, limit: number, cursor?: string | null): Promise<Page<Stored>> {
    const page = await this.implicitIds(tenant, query, limit, cursor, {
      list: 'query-implicit-submodel-descriptors',
      target: 'submodelDescriptors',
      table: 'submodels',
      alias: 'm',
      derived: (sql, apiUrl, attributes) => implicitSubmodelDescriptor(sql, 'm', apiUrl, attributes),
    });
    const heads = await this.submodels.heads(tenant, page.items);
    // A submodel deleted between the two statements is left out.
    const items = page.items.flatMap((id): Stored[] => {
      const head = heads.get(id);
      return head ? [this.implicit.describeSubmodel(tenant, head)] : [];
    });
    return { items, cursor: page.cursor };
  }

  /**
   * A page of the ids of the tenant's shells or submodels (`table`, as `alias`) whose descriptor, derived in SQL by
   * `derived`, meets `query`, in insertion order: what both implicit registries answer from.
   */
  private async implicitIds(
    tenant: TenantEntity,
    query: Query,
    limit: number,
    cursor: string | null | undefined,
    of: {
      list: string;
      target: 'shellDescriptors' | 'submodelDescriptors';
      table: 'shells' | 'submodels';
      alias: string;
      /** The derived descriptor's SQL; `tenantParam` is the tenant id's parameter, for the tables it reads. */
      derived: (sql: Statement, apiUrl: string, attributes: ReadonlySet<string>, tenantParam: string) => string;
    },
  ): Promise<Page<string>> {
    const { alias: a } = of;
    const list = cursorList(of.list, tenant.id, query.condition);
    const sql = new Statement([tenant.id]);
    const after = cursor == null ? '' : ` AND ${a}.seq > ${sql.param(seqAfter(list, cursor))}`;
    const derived = of.derived(sql, this.implicit.apiUrlOf(tenant.name), attributesOf(query), '$1');
    const where = sql.condition(query, of.target, 'x.doc');
    // OFFSET 0 keeps the derived descriptor a subquery of its own: computed once per row, not once per field.
    const rows = await this.read<{ seq: string; id: string }>(
      `SELECT ${a}.seq, ${a}.id FROM ${of.table} ${a} CROSS JOIN LATERAL (SELECT ${derived} AS doc OFFSET 0) x
        WHERE ${a}.tenant_id = $1${after} AND ${where} ORDER BY ${a}.seq LIMIT ${sql.param(limit + 1)}`,
      sql.params,
    );
    return paged(list, rows, limit, (row) => Number(row.seq), (row) => row.id);
  }

  /** A page's statement: the client's query, under QUERY_TIMEOUT_MS; what PostgreSQL refuses in it is a 400. */
  private read<R>(sql: string, params: unknown[]): Promise<R[]> {
    return boundedRead<R>(this.dataSource, sql, params, this.options.timeoutMs);
  }
}

/** A page of a descriptor query, and whether the query asked for identifiers only (`$select: "id"`). */
export interface QueryPage extends Page<Stored> {
  select?: 'id';
}

const ROOT_OF: Partial<Record<QueryTarget, Root>> = { shellDescriptors: '$aasdesc', submodelDescriptors: '$smdesc' };
const ROUTE_OF: Partial<Record<Root, string>> = {
  $aas: 'POST /query/shells',
  $sm: 'POST /query/submodels',
  $sme: 'POST /query/submodels',
  $cd: 'POST /query/concept-descriptions',
  $aasdesc: 'POST /query/shell-descriptors',
  $smdesc: 'POST /query/submodel-descriptors',
};

/** The parsed query (400 for a bad one, or one with fields of another kind of object, naming the first). */
function descriptorQuery(input: unknown, target: QueryTarget, limit: number): Query {
  const problem = checkLimit(limit);
  if (problem) throw badRequest(problem);
  const query = parseQuery(input);
  const root = ROOT_OF[target]!;
  const foreign = fieldsOf(query.condition).find((f) => f.root !== root);
  if (foreign) {
    const text = `Invalid query at /$condition: the field "${foreign.text}" is not one of a ${target === 'shellDescriptors' ? 'shell' : 'submodel'} descriptor: this query takes ${root} fields only (${foreign.root} fields are for ${ROUTE_OF[foreign.root]}).`;
    throw badRequest(text);
  }
  return query;
}

/** Every field a condition reads. */
function fieldsOf(c: Condition): Field[] {
  const out: Field[] = [];
  const operand = (o: Operand): void => {
    if (o.kind === 'field') out.push(o);
    else if (o.kind === 'cast') operand(o.operand);
  };
  const visit = (node: Condition): void => {
    switch (node.kind) {
      case 'and':
      case 'or':
      case 'match':
        node.items.forEach(visit);
        break;
      case 'not':
        visit(node.item);
        break;
      case 'compare':
        operand(node.left);
        operand(node.right);
        break;
      case 'boolean':
        break;
    }
  };
  visit(c);
  return out;
}

/**
 * The attributes a query reads, by their first name and their first two (`endpoints`, `submodelDescriptors.endpoints`):
 * what a derived descriptor must have.
 */
function attributesOf(query: Query): Set<string> {
  const out = new Set<string>();
  for (const f of fieldsOf(query.condition)) {
    const [first, second] = f.attribute;
    out.add(first.name);
    if (second) out.add(`${first.name}.${second.name}`);
  }
  return out;
}

/** The parameters of one statement: the caller's first, then the condition's, then the limit. */
class Statement {
  constructor(readonly params: unknown[]) {}

  param(value: unknown): string {
    return `$${this.params.push(value)}`;
  }

  condition(query: Query, target: QueryTarget, doc: string): string {
    const { where, params } = toSql(query, target, { doc, firstParam: this.params.length + 1 });
    this.params.push(...params);
    return `(${where})`;
  }
}

/** base64url (no padding) of an SQL text expression's UTF-8, as encodeBase64Url writes identifiers in URLs. */
const base64Url = (text: string) => `translate(encode(convert_to(${text}, 'UTF8'), 'base64'), E'+/=\\n', '-_')`;

/** An endpoint as implicit.service.ts's `endpoint` writes it (only what a query reads: interface and href). */
const endpointSql = (iface: string, href: string) =>
  `jsonb_build_array(jsonb_build_object('interface', '${iface}', 'protocolInformation', jsonb_build_object('href', ${href})))`;

/**
 * The implicit descriptor of the submodel row `m` as jsonb, with the attributes `$smdesc` and
 * `$aasdesc#submodelDescriptors[]` fields read (implicit.service.ts `submodelDescriptorJson`): its head's id,
 * idShort and semanticId, and (when read) its endpoint.
 */
function implicitSubmodelDescriptor(sql: Statement, m: string, apiUrl: string, attributes: ReadonlySet<string>): string {
  const members = [`'id', to_jsonb(${m}.id)`, `'idShort', ${m}.doc->'idShort'`, `'semanticId', ${m}.doc->'semanticId'`];
  if (attributes.has('endpoints')) {
    members.push(`'endpoints', ${endpointSql(SUBMODEL_INTERFACE, `${sql.param(`${apiUrl}/submodels/`)}::text || ${base64Url(`${m}.id`)}`)}`);
  }
  return `jsonb_build_object(${members.join(', ')})`;
}

/**
 * The implicit descriptor of the shell row `s` as jsonb (implicit.service.ts `describeShell`): its idShort, id,
 * asset kind, type, global and specific asset ids, and (when read) its endpoint and the descriptors of the
 * submodels it references that the tenant (`tenantParam`, its id's parameter) stores, in the order of its references.
 */
function implicitShellDescriptor(sql: Statement, apiUrl: string, attributes: ReadonlySet<string>, tenantParam: string): string {
  const info = `s.doc->'assetInformation'`;
  const members = [
    `'id', to_jsonb(s.id)`,
    `'idShort', s.doc->'idShort'`,
    `'assetKind', ${info}->'assetKind'`,
    `'assetType', ${info}->'assetType'`,
    `'globalAssetId', ${info}->'globalAssetId'`,
    `'specificAssetIds', ${info}->'specificAssetIds'`,
  ];
  if (attributes.has('endpoints')) {
    members.push(`'endpoints', ${endpointSql(AAS_INTERFACE, `${sql.param(`${apiUrl}/shells/`)}::text || ${base64Url('s.id')}`)}`);
  }
  if (attributes.has('submodelDescriptors')) {
    // shell.service.ts `referencedSubmodelIds`: model references with one Submodel key; dangling ones are left out.
    members.push(`'submodelDescriptors', (
      SELECT jsonb_agg(${implicitSubmodelDescriptor(sql, 'sm', apiUrl, new Set(attributes.has('submodelDescriptors.endpoints') ? ['endpoints'] : []))} ORDER BY r.ord)
        FROM jsonb_array_elements(CASE jsonb_typeof(s.doc->'submodels') WHEN 'array' THEN s.doc->'submodels' ELSE '[]'::jsonb END) WITH ORDINALITY AS r(ref, ord)
        JOIN submodels sm ON sm.tenant_id = ${tenantParam} AND md5(sm.id) = md5(r.ref->'keys'->0->>'value') AND sm.id = r.ref->'keys'->0->>'value'
        WHERE r.ref->>'type' = 'ModelReference' AND jsonb_array_length(r.ref->'keys') = 1 AND r.ref->'keys'->0->>'type' = 'Submodel')`);
  }
  return `jsonb_build_object(${members.join(', ')})`;
}

/** The seq after which a page of a seq-keyed list resumes; 400 for a cursor of another list. */
function seqAfter(list: string, cursor: string): number {
  const key = decodeCursor(list, cursor);
  if (typeof key !== 'number') throw badCursor();
  return key;
}

/** The (shell descriptor seq, position) after which a page of submodel descriptors resumes. */
function positionAfter(list: string, cursor: string): [string, string] {
  const key = decodeCursor(list, cursor);
  const m = typeof key === 'string' ? /^(\d{1,18}):(\d{1,9})$/.exec(key) : null;
  if (!m) throw badCursor();
  return [m[1], m[2]];
}

const badCursor = () => badRequest('The cursor is not one this server issued for this list.');

/** A page of `rows` (one more than `limit` when another page follows), mapped, with the cursor after its last row. */
function paged<R, T>(list: string, rows: R[], limit: number, keyOf: (row: R) => string | number, map: (row: R) => T): Page<T> {
  const items = rows.slice(0, limit);
  return { items: items.map(map), cursor: rows.length > limit ? encodeCursor(list, keyOf(items[items.length - 1])) : undefined };
}
