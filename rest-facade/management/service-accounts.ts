import { ManagementRouteSpec, ifMatchOf, noContent, PAGING, pagingOf, recordPage, recordResponse } from './route';

const TAG = 'Service accounts';
const SERVICE_ACCOUNT = 'id clientId name description tokenUrl createdAt updatedAt etag';
const SECRET = 'id hint description createdAt expiresAt active';
const NEW_SECRET = `secret { ${SECRET} } value clientId tokenUrl`;
const BASE = '/organizations/:organizationId/service-accounts';

const accountOf = (req: { params: Record<string, string> }) => ({ organizationId: req.params.organizationId, serviceAccountId: req.params.serviceAccountId });

export const serviceAccountRoutes: ManagementRouteSpec[] = [
  {
    method: 'POST',
    path: BASE,
    summary: 'Create a service account (name, description); it has no secret and no role yet. Organization owners only.',
    tag: TAG,
    body: true,
    operation: `mutation CreateServiceAccount($organizationId: ID!, $input: ServiceAccountInput!) { createServiceAccount(organizationId: $organizationId, input: $input) { ${SERVICE_ACCOUNT} } }`,
    variables: (req) => ({ organizationId: req.params.organizationId, input: req.body }),
    created: true,
    respond: (data, req) =>
      recordResponse(data.createServiceAccount, { status: 201, location: `${req.apiUrl}/organizations/${req.params.organizationId}/service-accounts/${data.createServiceAccount.id}` }),
  },
  {
    method: 'GET',
    path: BASE,
    summary: "List the organization's service accounts (organization readers), paged with limit and cursor.",
    tag: TAG,
    operation: `query ServiceAccounts($organizationId: ID!, $limit: Int, $cursor: String) { serviceAccounts(organizationId: $organizationId, limit: $limit, cursor: $cursor) { result { ${SERVICE_ACCOUNT} } pagingMetadata { cursor } } }`,
    query: PAGING,
    variables: (req) => ({ organizationId: req.params.organizationId, ...pagingOf(req) }),
    respond: (data) => recordPage(data.serviceAccounts),
  },
  {
    method: 'GET',
    path: `${BASE}/:serviceAccountId`,
    summary: 'Get a service account (organization readers); its id is its OAuth client_id, tokenUrl its token endpoint.',
    tag: TAG,
    operation: `query ServiceAccount($organizationId: ID!, $serviceAccountId: ID!) { serviceAccount(organizationId: $organizationId, serviceAccountId: $serviceAccountId) { ${SERVICE_ACCOUNT} } }`,
    variables: accountOf,
    respond: (data) => recordResponse(data.serviceAccount),
  },
  {
    method: 'PUT',
    path: `${BASE}/:serviceAccountId`,
    summary: 'Replace a service account (name, description). If-Match is honoured. Organization owners only.',
    tag: TAG,
    body: true,
    operation: `mutation ReplaceServiceAccount($organizationId: ID!, $serviceAccountId: ID!, $input: ServiceAccountInput!, $ifMatch: String) { replaceServiceAccount(organizationId: $organizationId, serviceAccountId: $serviceAccountId, input: $input, ifMatch: $ifMatch) { ${SERVICE_ACCOUNT} } }`,
    variables: (req) => ({ ...accountOf(req), input: req.body, ...ifMatchOf(req) }),
    respond: (data) => recordResponse(data.replaceServiceAccount),
  },
  {
    method: 'PATCH',
    path: `${BASE}/:serviceAccountId`,
    summary: 'Change the given fields of a service account. If-Match is honoured. Organization owners only.',
    tag: TAG,
    body: true,
    operation: `mutation UpdateServiceAccount($organizationId: ID!, $serviceAccountId: ID!, $input: ServiceAccountPatch!, $ifMatch: String) { updateServiceAccount(organizationId: $organizationId, serviceAccountId: $serviceAccountId, input: $input, ifMatch: $ifMatch) { ${SERVICE_ACCOUNT} } }`,
    variables: (req) => ({ ...accountOf(req), input: req.body, ...ifMatchOf(req) }),
    respond: (data) => recordResponse(data.updateServiceAccount),
  },
  {
    method: 'DELETE',
    path: `${BASE}/:serviceAccountId`,
    summary:
      'Delete a service account with its secrets, role assignments and group memberships; 409 when the organization would be left without an owner. If-Match is honoured. Organization owners only.',
    tag: TAG,
    operation: `mutation DeleteServiceAccount($organizationId: ID!, $serviceAccountId: ID!, $ifMatch: String) { deleteServiceAccount(organizationId: $organizationId, serviceAccountId: $serviceAccountId, ifMatch: $ifMatch) }`,
    variables: (req) => ({ ...accountOf(req), ...ifMatchOf(req) }),
    respond: noContent,
  },
  {
    method: 'POST',
    path: `${BASE}/:serviceAccountId/secrets`,
    summary:
      'Add a client secret (body: description, expiresAt or validForSeconds, all optional; the body may be left out). The answer holds its value, the only time it is shown. At most two active secrets (409). Organization owners only.',
    tag: TAG,
    body: 'optional',
    operation: `mutation AddServiceAccountSecret($organizationId: ID!, $serviceAccountId: ID!, $input: ServiceAccountSecretInput!) { addServiceAccountSecret(organizationId: $organizationId, serviceAccountId: $serviceAccountId, input: $input) { ${NEW_SECRET} } }`,
    variables: (req) => ({ ...accountOf(req), input: req.body }),
    created: true,
    respond: (data) => ({ status: 201, body: data.addServiceAccountSecret }),
  },
  {
    method: 'GET',
    path: `${BASE}/:serviceAccountId/secrets`,
    summary: "List a service account's secrets: metadata only (hint, description, expiry, active), never a value. Organization readers.",
    tag: TAG,
    operation: `query ServiceAccountSecrets($organizationId: ID!, $serviceAccountId: ID!, $limit: Int, $cursor: String) { serviceAccountSecrets(organizationId: $organizationId, serviceAccountId: $serviceAccountId, limit: $limit, cursor: $cursor) { result { ${SECRET} } pagingMetadata { cursor } } }`,
    query: PAGING,
    variables: (req) => ({ ...accountOf(req), ...pagingOf(req) }),
    respond: (data) => recordPage(data.serviceAccountSecrets),
  },
  {
    method: 'POST',
    path: `${BASE}/:serviceAccountId/secrets/rotate`,
    summary:
      'Rotate: add a secret (answer as for adding one) and let the other active secret expire previousSecretValidForSeconds from now (default 86400, 0: now; never later than it would have). 409 with two active secrets. Organization owners only.',
    tag: TAG,
    body: 'optional',
    operation: `mutation RotateServiceAccountSecret($organizationId: ID!, $serviceAccountId: ID!, $input: ServiceAccountSecretRotation!) { rotateServiceAccountSecret(organizationId: $organizationId, serviceAccountId: $serviceAccountId, input: $input) { ${NEW_SECRET} previousSecret { ${SECRET} } } }`,
    variables: (req) => ({ ...accountOf(req), input: req.body }),
    created: true,
    respond: (data) => ({ status: 201, body: data.rotateServiceAccountSecret }),
  },
  {
    method: 'DELETE',
    path: `${BASE}/:serviceAccountId/secrets/:secretId`,
    summary: 'Delete a secret: it stops working at once. Organization owners only.',
    tag: TAG,
    operation: `mutation DeleteServiceAccountSecret($organizationId: ID!, $serviceAccountId: ID!, $secretId: ID!) { deleteServiceAccountSecret(organizationId: $organizationId, serviceAccountId: $serviceAccountId, secretId: $secretId) }`,
    variables: (req) => ({ ...accountOf(req), secretId: req.params.secretId }),
    respond: noContent,
  },
];
