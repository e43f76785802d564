import { PAGING, pagingOf, INVITATION_STATUS, ifMatchOf, ManagementRouteSpec, noContent, recordPage, recordResponse } from './route';
import { single } from '../params';

const USER = 'id organizationId email displayName joinedAt';
const INVITATION = 'id organizationId accountId status invitedBy expiresAt createdAt updatedAt etag';
const ORG = '/organizations/:organizationId';

export const userRoutes: ManagementRouteSpec[] = [
  {
    method: 'GET',
    path: `${ORG}/users`,
    summary: 'List the users of the organization (identity accounts that joined it), in the order they joined.',
    tag: 'Users',
    operation: `query Users($organizationId: ID!, $limit: Int, $cursor: String) { organizationUsers(organizationId: $organizationId, limit: $limit, cursor: $cursor) { result { ${USER} } pagingMetadata { cursor } } }`,
    query: PAGING,
    variables: (req) => ({ organizationId: req.params.organizationId, ...pagingOf(req) }),
    respond: (data) => recordPage(data.organizationUsers),
  },
  {
    method: 'GET',
    path: `${ORG}/users/:userId`,
    summary: 'Get a user of the organization (by identity account id).',
    tag: 'Users',
    operation: `query User($organizationId: ID!, $userId: ID!) { organizationUser(organizationId: $organizationId, userId: $userId) { ${USER} } }`,
    variables: (req) => ({ organizationId: req.params.organizationId, userId: req.params.userId }),
    respond: (data) => recordResponse(data.organizationUser),
  },
  {
    method: 'DELETE',
    path: `${ORG}/users/:userId`,
    summary: 'Remove a user from the organization, with its role assignments and group memberships there. 409 for the last owner.',
    tag: 'Users',
    operation: 'mutation RemoveUser($organizationId: ID!, $userId: ID!) { removeOrganizationUser(organizationId: $organizationId, userId: $userId) }',
    variables: (req) => ({ organizationId: req.params.organizationId, userId: req.params.userId }),
    respond: noContent,
  },
  {
    method: 'POST',
    path: `${ORG}/users/invite`,
    summary: 'Invite a user by the id of its identity account (body {"accountId"}); it joins when it accepts. An expired invitation of the same account is renewed.',
    tag: 'Users',
    body: true,
    operation: `mutation Invite($organizationId: ID!, $input: InviteUserInput!) { inviteUser(organizationId: $organizationId, input: $input) { ${INVITATION} } }`,
    variables: (req) => ({ organizationId: req.params.organizationId, input: req.body }),
    created: true,
    respond: (data, req) =>
      recordResponse(data.inviteUser, { status: 201, location: `${req.apiUrl}/organizations/${data.inviteUser.organizationId}/invitations/${data.inviteUser.id}` }),
  },
  {
    method: 'GET',
    path: `${ORG}/invitations`,
    summary: 'List the invitations of the organization; `status` filters: pending, accepted, expired, revoked.',
    tag: 'Users',
    operation: `query Invitations($organizationId: ID!, $status: InvitationStatus, $limit: Int, $cursor: String) { invitations(organizationId: $organizationId, status: $status, limit: $limit, cursor: $cursor) { result { ${INVITATION} } pagingMetadata { cursor } } }`,
    query: [INVITATION_STATUS, ...PAGING],
    variables: (req) => ({ organizationId: req.params.organizationId, status: single(req.query, 'status') ?? null, ...pagingOf(req) }),
    respond: (data) => recordPage(data.invitations),
  },
  {
    method: 'GET',
    path: `${ORG}/invitations/:invitationId`,
    summary: 'Get an invitation of the organization.',
    tag: 'Users',
    operation: `query Invitation($organizationId: ID!, $invitationId: ID!) { invitation(organizationId: $organizationId, invitationId: $invitationId) { ${INVITATION} } }`,
    variables: (req) => ({ organizationId: req.params.organizationId, invitationId: req.params.invitationId }),
    respond: (data) => recordResponse(data.invitation),
  },
  {
    method: 'POST',
    path: `${ORG}/invitations/:invitationId/revoke`,
    summary: 'Revoke a pending invitation (409 once accepted, revoked or expired). If-Match is honoured.',
    tag: 'Users',
    operation: `mutation Revoke($organizationId: ID!, $invitationId: ID!, $ifMatch: String) { revokeInvitation(organizationId: $organizationId, invitationId: $invitationId, ifMatch: $ifMatch) { ${INVITATION} } }`,
    variables: (req) => ({ organizationId: req.params.organizationId, invitationId: req.params.invitationId, ...ifMatchOf(req) }),
    respond: (data) => recordResponse(data.revokeInvitation),
  },
  {
    method: 'GET',
    path: '/me/invitations',
    summary: "List the calling user's invitations; `status` filters as above.",
    tag: 'Users',
    operation: `query MyInvitations($status: InvitationStatus, $limit: Int, $cursor: String) { myInvitations(status: $status, limit: $limit, cursor: $cursor) { result { ${INVITATION} } pagingMetadata { cursor } } }`,
    query: [INVITATION_STATUS, ...PAGING],
    variables: (req) => ({ status: single(req.query, 'status') ?? null, ...pagingOf(req) }),
    respond: (data) => recordPage(data.myInvitations),
  },
  {
    method: 'POST',
    path: '/invitations/:invitationId/accept',
    summary: 'Accept an invitation: only the invited account may (anyone else gets 404); it becomes a user of the organization. 409 when revoked, expired or accepted already.',
    tag: 'Users',
    operation: `mutation Accept($invitationId: ID!) { acceptInvitation(invitationId: $invitationId) { ${INVITATION} } }`,
    variables: (req) => ({ invitationId: req.params.invitationId }),
    respond: (data) => recordResponse(data.acceptInvitation),
  },
];

const ACCOUNT = 'id email displayName createdAt';

export const accountRoutes: ManagementRouteSpec[] = [
  {
    method: 'POST',
    path: '/accounts',
    summary:
      'Sign up: create an identity account on the built-in identity service (body {"email", "password" (at least 12 characters), "displayName"}); no token needed. 403 when SIGNUP_ENABLED=false. Its id is what organizations invite.',
    tag: 'Accounts',
    body: true,
    anonymous: true,
    operation: `mutation SignUp($input: SignUpInput!) { signUp(input: $input) { ${ACCOUNT} } }`,
    variables: (req) => ({ input: req.body }),
    created: true,
    respond: (data, req) => recordResponse(data.signUp, { status: 201, location: `${req.apiUrl}/accounts/${data.signUp.id}` }),
  },
  {
    method: 'GET',
    path: '/accounts/:accountId',
    summary: "Get an identity account: the caller's own (any other answers 404).",
    tag: 'Accounts',
    operation: `query Account($accountId: ID!) { account(accountId: $accountId) { ${ACCOUNT} } }`,
    variables: (req) => ({ accountId: req.params.accountId }),
    respond: (data) => recordResponse(data.account),
  },
];
