import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type ManagementClient, newOrganization } from '../support/management';
import { TestServer, startTestServer } from '../support/server';

let server: TestServer;
let owner: ManagementClient;
let organizationId: string;

beforeAll(async () => {
  server = await startTestServer(inject('databaseUrl'));
  const created = await newOrganization(server);
  owner = created.owner;
  organizationId = created.organization.id;
});
afterAll(() => server?.close());

describe('400 texts of bodies that do not fit a route', () => {
  it('name the field and what it must be, in the terms of the API, never the operation behind the route', async () => {
    const cases: [string, string, unknown, RegExp][] = [
      ['POST', '/organizations', {}, /^'name' is required: a string\.$/],
      ['POST', '/organizations', { name: 'x', zzz: 1 }, /^'zzz' is not a field of this request\.$/],
      ['POST', '/organizations', { name: 5 }, /^'name' must be a string, got 5\.$/],
      ['POST', `/organizations/${organizationId}/tenants`, { name: 'abc', showcase: 'yes' }, /^'showcase' must be true or false, got "yes"\.$/],
    ];
    for (const [method, path, body, text] of cases) {
      const res = await owner.call(method, path, body);
      expect({ path, body, status: res.status }).toEqual({ path, body, status: 400 });
      const texts: string[] = res.body.messages.map((m: { text: string }) => m.text);
      expect(texts.some((t) => text.test(t)), `${JSON.stringify(body)}: ${texts.join(' | ')}`).toBe(true);
      for (const t of texts) expect(t).not.toMatch(/Variable|\$\w|String!|Input\b|GraphQL/);
    }
  });
});
