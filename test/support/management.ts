import type { RunningServer } from '../../src/server';
import { newUser } from './identity';

type Server = Pick<RunningServer, 'url' | 'services'>;

/** A client of the Management API as one caller: `call(method, path, body?, headers?)` relative to /api/v1. */
export interface ManagementClient {
  token: string;
  call(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<{ status: number; body: any; headers: Headers }>;
}

export function managementClient(server: Pick<RunningServer, 'url'>, token: string | null): ManagementClient {
  return {
    token: token ?? '',
    async call(method, path, body, headers = {}) {
      const res = await fetch(`${server.url}/api/v1${path}`, {
        method,
        headers: {
          ...(token ? { authorization: `Bearer ${token}` } : {}),
          ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
          ...headers,
        },
        body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
      });
      const text = await res.text();
      let parsed: unknown = text;
      try {
        parsed = text ? JSON.parse(text) : undefined;
      } catch {
        // not JSON: the text itself
      }
      return { status: res.status, body: parsed, headers: res.headers };
    },
  };
}

/** A new user (signed up, logged in through the login page) who creates an organization and so owns it. */
export async function newOrganization(server: Server, name = 'test organization') {
  const user = await newUser(server);
  const owner = managementClient(server, await user.token());
  const created = await owner.call('POST', '/organizations', { name });
  if (created.status !== 201) throw new Error(`organization not created: ${created.status} ${JSON.stringify(created.body)}`);
  return { user, owner, organization: created.body as { id: string; name: string } };
}

/** A new user who joined the organization (invited by `owner`, accepted), with a Management API client of its own. */
export async function joinedMember(server: Server, owner: ManagementClient, organizationId: string, options: { displayName?: string } = {}) {
  const user = await newUser(server, options);
  const client = managementClient(server, await user.token());
  const invitation = await owner.call('POST', `/organizations/${organizationId}/users/invite`, { accountId: user.id });
  if (invitation.status !== 201) throw new Error(`invitation not made: ${invitation.status} ${JSON.stringify(invitation.body)}`);
  const accepted = await client.call('POST', `/invitations/${invitation.body.id}/accept`);
  if (accepted.status !== 200) throw new Error(`invitation not accepted: ${accepted.status} ${JSON.stringify(accepted.body)}`);
  return { user, client };
}
