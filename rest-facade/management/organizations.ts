import { ManagementRouteSpec, ifMatchOf, PAGING, pagingOf, recordPage, recordResponse } from './route';

const TAG = 'Organizations';
const ORGANIZATION = 'id name platform createdAt updatedAt etag';

export const organizationRoutes: ManagementRouteSpec[] = [
  {
    method: 'POST',
    path: '/organizations',
    summary: 'Create an organization; the calling user becomes its single user and organization-owner (users only, not service accounts).',
    tag: TAG,
    body: true,
    operation: `mutation CreateOrganization($input: OrganizationInput!) { createOrganization(input: $input) { ${ORGANIZATION} } }`,
    variables: (req) => ({ input: req.body }),
    created: true,
    respond: (data, req) => recordResponse(data.createOrganization, { status: 201, location: `${req.apiUrl}/organizations/${data.createOrganization.id}` }),
  },
  {
    method: 'GET',
    path: '/organizations',
    summary: 'List the organizations the caller holds a role in or is a user of.',
    tag: TAG,
    operation: `query Organizations($limit: Int, $cursor: String) { organizations(limit: $limit, cursor: $cursor) { result { ${ORGANIZATION} } pagingMetadata { cursor } } }`,
    query: PAGING,
    variables: (req) => pagingOf(req),
    respond: (data) => recordPage(data.organizations),
  },
  {
    method: 'GET',
    path: '/organizations/:organizationId',
    summary: 'Get an organization.',
    tag: TAG,
    operation: `query Organization($organizationId: ID!) { organization(organizationId: $organizationId) { ${ORGANIZATION} } }`,
    variables: (req) => ({ organizationId: req.params.organizationId }),
    respond: (data) => recordResponse(data.organization),
  },
  {
    method: 'PUT',
    path: '/organizations/:organizationId',
    summary: 'Replace an organization (its name). If-Match is honoured.',
    tag: TAG,
    body: true,
    operation: `mutation ReplaceOrganization($organizationId: ID!, $input: OrganizationInput!, $ifMatch: String) { replaceOrganization(organizationId: $organizationId, input: $input, ifMatch: $ifMatch) { ${ORGANIZATION} } }`,
    variables: (req) => ({ organizationId: req.params.organizationId, input: req.body, ...ifMatchOf(req) }),
    respond: (data) => recordResponse(data.replaceOrganization),
  },
  {
    method: 'PATCH',
    path: '/organizations/:organizationId',
    summary: 'Change the given fields of an organization. If-Match is honoured.',
    tag: TAG,
    body: true,
    operation: `mutation UpdateOrganization($organizationId: ID!, $input: OrganizationPatch!, $ifMatch: String) { updateOrganization(organizationId: $organizationId, input: $input, ifMatch: $ifMatch) { ${ORGANIZATION} } }`,
    variables: (req) => ({ organizationId: req.params.organizationId, input: req.body, ...ifMatchOf(req) }),
    respond: (data) => recordResponse(data.updateOrganization),
  },
];
