import { ClassType, Field, ObjectType } from 'type-graphql';
import { EntityManager, ObjectLiteral, QueryFailedError, SelectQueryBuilder } from 'typeorm';
import { PagingMetadata } from '../aas/model/graphql-types';
import { checkLimit, cursorList, decodeCursor, encodeCursor } from '../common/cursor';
import { etagOf, ifMatchAdmits } from '../common/etag';
import { badRequest, conflict, preconditionFailed } from '../graphql/errors';

/**
 * What every Management API resource shares: keyset paging on the insertion number (`seq`), entity tags of
 * `seq` and `version`, If-Match checks, and the rule that an organization always keeps an owner.
 */

export interface Page<T> {
  result: T[];
  pagingMetadata: { cursor?: string };
}

/** A GraphQL page type of management records: `result` and `pagingMetadata`, as the AAS lists. */
export function PageOf<T extends object>(item: ClassType<T>, name: string) {
  @ObjectType(`${name}Page`, { description: `A page of ${name} records; \`pagingMetadata.cursor\` is absent on the last page.` })
  class RecordPage {
    @Field(() => [item])
    result: T[];

    @Field(() => PagingMetadata)
    pagingMetadata: PagingMetadata;
  }
  return RecordPage;
}

/**
 * One page of a query, in insertion order: `limit` 1..250 (400 otherwise), `cursor` from a previous page of
 * the same list (400 for any other). `alias.seq` is the key.
 */
export async function pageBySeq<T extends ObjectLiteral>(
  query: SelectQueryBuilder<T>,
  list: string,
  limit: number,
  cursor: string | null | undefined,
): Promise<Page<T>> {
  const problem = checkLimit(limit);
  if (problem) throw badRequest(problem);
  const alias = query.alias;
  // Bound to the list's statement and parameters as the caller built it (the organization, the filters), before the cursor's position.
  const [sql, params] = query.getQueryAndParameters();
  const bound = cursorList(list, sql, params);
  if (cursor !== null && cursor !== undefined) {
    const after = decodeCursor(bound, cursor);
    if (typeof after !== 'string' || !/^\d{1,19}$/.test(after)) throw badRequest('The cursor is not one this list issued.');
    query.andWhere(`${alias}.seq > :after`, { after });
  }
  const rows = await query.orderBy(`${alias}.seq`, 'ASC').take(limit + 1).getMany();
  const more = rows.length > limit;
  const result = more ? rows.slice(0, limit) : rows;
  return { result, pagingMetadata: more ? { cursor: encodeCursor(bound, String((result[result.length - 1] as unknown as { seq: string }).seq)) } : {} };
}

export interface Versioned {
  seq: string;
  version: number;
}

export const etagOfRecord = (record: Versioned) => etagOf(record.seq, record.version);

/** 412 unless `ifMatch` (when given) admits the record's current tag. */
export function checkIfMatch(record: Versioned, ifMatch: string | null | undefined, what: string): void {
  if (ifMatch === null || ifMatch === undefined) return;
  const current = etagOfRecord(record);
  if (!ifMatchAdmits(ifMatch, current)) throw preconditionFailed(`${what} has changed: its entity tag is ${current}, If-Match asked for ${ifMatch}.`);
}

/**
 * Serializes changes that may take an organization's last owner away (removing a user, deleting a service
 * account, a group, an assignment, a member): the row lock on the organization is held until the transaction
 * ends, and `assertOwnerRemains` then counts what is left.
 */
export async function lockOrganization(manager: EntityManager, organizationId: string): Promise<void> {
  await manager.query('SELECT id FROM organizations WHERE id = $1 FOR UPDATE', [organizationId]);
}

/** 409 (and the transaction rolls back) when the organization is left without any principal holding organization-owner. */
export async function assertOwnerRemains(manager: EntityManager, organizationId: string): Promise<void> {
  const [{ owners }] = await manager.query(
    `SELECT count(*)::int AS owners FROM (
       SELECT principal_type, principal_id FROM role_assignments
        WHERE organization_id = $1 AND tenant_id IS NULL AND role = 'organization-owner' AND principal_type <> 'group'
       UNION
       SELECT gm.principal_type, gm.principal_id FROM role_assignments ra JOIN group_members gm ON gm.group_id = ra.principal_id
        WHERE ra.organization_id = $1 AND ra.tenant_id IS NULL AND ra.role = 'organization-owner' AND ra.principal_type = 'group'
     ) holders`,
    [organizationId],
  );
  if (owners < 1) throw conflict('This would leave the organization without an organization-owner; make someone else owner first.');
}

/**
 * Removes what names a principal in one organization: its role assignments and its memberships in the
 * organization's groups (the tables have no foreign key to the principal, which may be a user or a service account).
 */
export async function removePrincipalFrom(manager: EntityManager, organizationId: string, type: 'user' | 'service-account', id: string): Promise<void> {
  await manager.query('DELETE FROM role_assignments WHERE organization_id = $1 AND principal_type = $2 AND principal_id = $3', [organizationId, type, id]);
  await manager.query(
    'DELETE FROM group_members WHERE principal_type = $2 AND principal_id = $3 AND group_id IN (SELECT id FROM user_groups WHERE organization_id = $1)',
    [organizationId, type, id],
  );
}
/** Runs `write`, turning a unique-index violation
 into 409 with `message`. */
export async function uniquely<T>(write: () => Promise<T>, message: string): Promise<T> {
  try {
    return await write();
  } catch (err) {
    if (err instanceof QueryFailedError && (err.driverError as { code?: string })?.code === '23505') throw conflict(message);
    throw err;
  }
}

/** Checks a free text field: trimmed, non-empty when required, at most `max` characters. Returns the problem. */
export function textProblem(value: unknown, field: string, options: { required?: boolean; max?: number } = {}): string | undefined {
  const max = options.max ?? 200;
  if (value === undefined || value === null) return options.required ? `${field} is required.` : undefined;
  if (typeof value !== 'string') return `${field} must be a string.`;
  if (options.required && value.trim() === '') return `${field} must not be empty.`;
  if (value.length > max) return `${field} is longer than ${max} characters.`;
  return undefined;
}

/** 400 listing every problem, when there is one. */
export function rejectProblems(problems: (string | undefined)[]): void {
  const found = problems.filter((p): p is string => p !== undefined);
  if (found.length) throw badRequest(found[0], found);
}

/** `version = version + 1` for an update through the query builder; `updated_at` too. */
export const bumpVersion = { version: () => 'version + 1', updatedAt: () => 'now()' } as const;
