import { ManagementRouteSpec, ifMatchOf, noContent, PAGING, pagingOf, recordPage, recordResponse } from './route';

const TAG = 'User groups';
const GROUP = 'id name description createdAt updatedAt etag';
const MEMBER = 'type id addedAt email displayName name';
const BASE = '/organizations/:organizationId/user-groups';

const groupOf = (req: { params: Record<string, string> }) => ({ organizationId: req.params.organizationId, groupId: req.params.groupId });

export const userGroupRoutes: ManagementRouteSpec[] = [
  {
    method: 'POST',
    path: BASE,
    summary: 'Create a user group (name `group@...`, unique in the organization; description). Organization owners only.',
    tag: TAG,
    body: true,
    operation: `mutation CreateUserGroup($organizationId: ID!, $input: UserGroupInput!) { createUserGroup(organizationId: $organizationId, input: $input) { ${GROUP} } }`,
    variables: (req) => ({ organizationId: req.params.organizationId, input: req.body }),
    created: true,
    respond: (data, req) =>
      recordResponse(data.createUserGroup, { status: 201, location: `${req.apiUrl}/organizations/${req.params.organizationId}/user-groups/${data.createUserGroup.id}` }),
  },
  {
    method: 'GET',
    path: BASE,
    summary: "List the organization's user groups (organization readers), paged with limit and cursor.",
    tag: TAG,
    operation: `query UserGroups($organizationId: ID!, $limit: Int, $cursor: String) { userGroups(organizationId: $organizationId, limit: $limit, cursor: $cursor) { result { ${GROUP} } pagingMetadata { cursor } } }`,
    query: PAGING,
    variables: (req) => ({ organizationId: req.params.organizationId, ...pagingOf(req) }),
    respond: (data) => recordPage(data.userGroups),
  },
  {
    method: 'GET',
    path: `${BASE}/:groupId`,
    summary: 'Get a user group (organization readers).',
    tag: TAG,
    operation: `query UserGroup($organizationId: ID!, $groupId: ID!) { userGroup(organizationId: $organizationId, groupId: $groupId) { ${GROUP} } }`,
    variables: groupOf,
    respond: (data) => recordResponse(data.userGroup),
  },
  {
    method: 'PUT',
    path: `${BASE}/:groupId`,
    summary: 'Replace a user group (rename; description). If-Match is honoured. Organization owners only.',
    tag: TAG,
    body: true,
    operation: `mutation ReplaceUserGroup($organizationId: ID!, $groupId: ID!, $input: UserGroupInput!, $ifMatch: String) { replaceUserGroup(organizationId: $organizationId, groupId: $groupId, input: $input, ifMatch: $ifMatch) { ${GROUP} } }`,
    variables: (req) => ({ ...groupOf(req), input: req.body, ...ifMatchOf(req) }),
    respond: (data) => recordResponse(data.replaceUserGroup),
  },
  {
    method: 'PATCH',
    path: `${BASE}/:groupId`,
    summary: 'Change the given fields of a user group (rename). If-Match is honoured. Organization owners only.',
    tag: TAG,
    body: true,
    operation: `mutation UpdateUserGroup($organizationId: ID!, $groupId: ID!, $input: UserGroupPatch!, $ifMatch: String) { updateUserGroup(organizationId: $organizationId, groupId: $groupId, input: $input, ifMatch: $ifMatch) { ${GROUP} } }`,
    variables: (req) => ({ ...groupOf(req), input: req.body, ...ifMatchOf(req) }),
    respond: (data) => recordResponse(data.updateUserGroup),
  },
  {
    method: 'DELETE',
    path: `${BASE}/:groupId`,
    summary:
      'Delete a user group with its role assignments and members; 409 when the organization would be left without an owner. If-Match is honoured. Organization owners only.',
    tag: TAG,
    operation: `mutation DeleteUserGroup($organizationId: ID!, $groupId: ID!, $ifMatch: String) { deleteUserGroup(organizationId: $organizationId, groupId: $groupId, ifMatch: $ifMatch) }`,
    variables: (req) => ({ ...groupOf(req), ...ifMatchOf(req) }),
    respond: noContent,
  },
  {
    method: 'POST',
    path: `${BASE}/:groupId/members`,
    summary:
      "Add members: body {members: [{type: 'user' | 'service-account', id}]} (1 to 100), users of the organization or its service accounts; members already in the group stay. The caller cannot add itself (403). Organization owners only.",
    tag: TAG,
    body: true,
    operation: `mutation AddUserGroupMembers($organizationId: ID!, $groupId: ID!, $input: UserGroupMembersInput!) { addUserGroupMembers(organizationId: $organizationId, groupId: $groupId, input: $input) { ${MEMBER} } }`,
    variables: (req) => ({ ...groupOf(req), input: req.body }),
    created: true,
    respond: (data) => ({ status: 201, body: { members: data.addUserGroupMembers } }),
  },
  {
    method: 'GET',
    path: `${BASE}/:groupId/members`,
    summary: "List a user group's members (users with email and display name, service accounts with name), paged. Organization readers.",
    tag: TAG,
    operation: `query UserGroupMembers($organizationId: ID!, $groupId: ID!, $limit: Int, $cursor: String) { userGroupMembers(organizationId: $organizationId, groupId: $groupId, limit: $limit, cursor: $cursor) { result { ${MEMBER} } pagingMetadata { cursor } } }`,
    query: PAGING,
    variables: (req) => ({ ...groupOf(req), ...pagingOf(req) }),
    respond: (data) => recordPage(data.userGroupMembers),
  },
  {
    method: 'DELETE',
    path: `${BASE}/:groupId/members/:memberId`,
    summary:
      'Remove a member (memberId: the user\'s account id or the service account id); 404 when it is none, 409 when the organization would be left without an owner. Organization owners only.',
    tag: TAG,
    operation: `mutation RemoveUserGroupMember($organizationId: ID!, $groupId: ID!, $memberId: ID!) { removeUserGroupMember(organizationId: $organizationId, groupId: $groupId, memberId: $memberId) }`,
    variables: (req) => ({ ...groupOf(req), memberId: req.params.memberId }),
    respond: noContent,
  },
];
