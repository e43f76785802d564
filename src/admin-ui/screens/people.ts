import { gql } from '../api';

/** What the organization "people" screens (users, service accounts, groups) load alike. */

interface Paged<T> {
  pagingMetadata: { cursor?: string | null };
  result: T[];
}

/** Every page of a list: `query` takes `$cursor` and selects `pagingMetadata { cursor }` of `field`. */
export async function allPages<T>(query: string, field: string, variables: Record<string, unknown>): Promise<T[]> {
  const rows: T[] = [];
  let cursor: string | null = null;
  do {
    const data: Record<string, Paged<T>> = await gql(query, { ...variables, cursor });
    rows.push(...data[field].result);
    cursor = data[field].pagingMetadata.cursor ?? null;
  } while (cursor);
  return rows;
}

export interface OrganizationUser {
  id: string;
  email: string;
  displayName?: string | null;
  joinedAt: string;
}

const USERS_QUERY = `query OrganizationUsers($organizationId: ID!, $cursor: String) {
  organizationUsers(organizationId: $organizationId, limit: 250, cursor: $cursor) { pagingMetadata { cursor } result { id email displayName joinedAt } }
}`;

export const loadUsers = (organizationId: string) => allPages<OrganizationUser>(USERS_QUERY, 'organizationUsers', { organizationId });

export interface ServiceAccount {
  id: string;
  clientId: string;
  name: string;
  description?: string | null;
  createdAt: string;
  updatedAt: string;
  tokenUrl: string;
  etag: string;
}

export const SERVICE_ACCOUNT_FIELDS = 'id clientId name description createdAt updatedAt tokenUrl etag';

const SERVICE_ACCOUNTS_QUERY = `query ServiceAccounts($organizationId: ID!, $cursor: String) {
  serviceAccounts(organizationId: $organizationId, limit: 250, cursor: $cursor) { pagingMetadata { cursor } result { ${SERVICE_ACCOUNT_FIELDS} } }
}`;

export const loadServiceAccounts = (organizationId: string) => allPages<ServiceAccount>(SERVICE_ACCOUNTS_QUERY, 'serviceAccounts', { organizationId });
