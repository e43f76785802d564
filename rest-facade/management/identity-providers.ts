import { ManagementRouteSpec, ifMatchOf, noContent, PAGING, pagingOf, recordPage, recordResponse } from './route';

const TAG = 'Identity providers';
const PROVIDER = 'id issuer audience jwksUri rolesClaim tenantId signInClientId signInName createdAt updatedAt etag';
const BASE = '/organizations/:organizationId/identity-providers';

const providerOf = (req: { params: Record<string, string> }) => ({ organizationId: req.params.organizationId, identityProviderId: req.params.identityProviderId });

export const identityProviderRoutes: ManagementRouteSpec[] = [
  {
    method: 'POST',
    path: BASE,
    summary:
      "Trust an external issuer (issuer, audience, jwksUri; rolesClaim, default 'roles'; tenantId to grant roles on one tenant only; signInClientId, the issuer's public client for the admin console, to offer a sign-in there, named signInName or the issuer's host). Takes effect at once. Organization owners only.",
    tag: TAG,
    body: true,
    operation: `mutation CreateIdentityProvider($organizationId: ID!, $input: IdentityProviderInput!) { createIdentityProvider(organizationId: $organizationId, input: $input) { ${PROVIDER} } }`,
    variables: (req) => ({ organizationId: req.params.organizationId, input: req.body }),
    created: true,
    respond: (data, req) =>
      recordResponse(data.createIdentityProvider, {
        status: 201,
        location: `${req.apiUrl}/organizations/${req.params.organizationId}/identity-providers/${data.createIdentityProvider.id}`,
      }),
  },
  {
    method: 'GET',
    path: BASE,
    summary: "List the organization's identity providers (trusted issuers), paged with limit and cursor. Organization readers.",
    tag: TAG,
    operation: `query IdentityProviders($organizationId: ID!, $limit: Int, $cursor: String) { identityProviders(organizationId: $organizationId, limit: $limit, cursor: $cursor) { result { ${PROVIDER} } pagingMetadata { cursor } } }`,
    query: PAGING,
    variables: (req) => ({ organizationId: req.params.organizationId, ...pagingOf(req) }),
    respond: (data) => recordPage(data.identityProviders),
  },
  {
    method: 'GET',
    path: `${BASE}/:identityProviderId`,
    summary: 'Get an identity provider (trusted issuer). Organization readers.',
    tag: TAG,
    operation: `query IdentityProvider($organizationId: ID!, $identityProviderId: ID!) { identityProvider(organizationId: $organizationId, identityProviderId: $identityProviderId) { ${PROVIDER} } }`,
    variables: providerOf,
    respond: (data) => recordResponse(data.identityProvider),
  },
  {
    method: 'PUT',
    path: `${BASE}/:identityProviderId`,
    summary: 'Replace an identity provider; takes effect at once. If-Match is honoured. Organization owners only.',
    tag: TAG,
    body: true,
    operation: `mutation ReplaceIdentityProvider($organizationId: ID!, $identityProviderId: ID!, $input: IdentityProviderInput!, $ifMatch: String) { replaceIdentityProvider(organizationId: $organizationId, identityProviderId: $identityProviderId, input: $input, ifMatch: $ifMatch) { ${PROVIDER} } }`,
    variables: (req) => ({ ...providerOf(req), input: req.body, ...ifMatchOf(req) }),
    respond: (data) => recordResponse(data.replaceIdentityProvider),
  },
  {
    method: 'PATCH',
    path: `${BASE}/:identityProviderId`,
    summary: 'Change the given fields of an identity provider (tenantId null: organization-wide); takes effect at once. If-Match is honoured. Organization owners only.',
    tag: TAG,
    body: true,
    operation: `mutation UpdateIdentityProvider($organizationId: ID!, $identityProviderId: ID!, $input: IdentityProviderPatch!, $ifMatch: String) { updateIdentityProvider(organizationId: $organizationId, identityProviderId: $identityProviderId, input: $input, ifMatch: $ifMatch) { ${PROVIDER} } }`,
    variables: (req) => ({ ...providerOf(req), input: req.body, ...ifMatchOf(req) }),
    respond: (data) => recordResponse(data.updateIdentityProvider),
  },
  {
    method: 'DELETE',
    path: `${BASE}/:identityProviderId`,
    summary: "Stop trusting an issuer: its tokens are refused at once. If-Match is honoured. Organization owners only.",
    tag: TAG,
    operation: `mutation DeleteIdentityProvider($organizationId: ID!, $identityProviderId: ID!, $ifMatch: String) { deleteIdentityProvider(organizationId: $organizationId, identityProviderId: $identityProviderId, ifMatch: $ifMatch) }`,
    variables: (req) => ({ ...providerOf(req), ...ifMatchOf(req) }),
    respond: noContent,
  },
];
