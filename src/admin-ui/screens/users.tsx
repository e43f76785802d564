import { useState } from 'react';
import { allPages, gql } from '../api';
import { useAccess } from '../me';
import { ConfirmDialog, ErrorBox, Field, Loaded, Notice, Page, Section, Table, formatTime, useAction, useLoad } from '../ui';
import { OrganizationUser, loadUsers } from './people';
import './people.css';

type InvitationStatus = 'pending' | 'accepted' | 'expired' | 'revoked';

interface Invitation {
  id: string;
  accountId: string;
  status: InvitationStatus;
  invitedBy: string;
  createdAt: string;
  expiresAt: string;
  updatedAt: string;
  etag: string;
}

const STATUSES: InvitationStatus[] = ['pending', 'accepted', 'expired', 'revoked'];

const STATUS_TEXT: Record<InvitationStatus, { label: string; kind: string; help: string }> = {
  pending: { label: 'Pending', kind: 'warn', help: 'waits for the person to accept it' },
  accepted: { label: 'Accepted', kind: 'ok', help: 'the person is a user of the organization' },
  expired: { label: 'Expired', kind: '', help: 'not accepted in time; invite again to renew it' },
  revoked: { label: 'Revoked', kind: 'bad', help: 'withdrawn; it can no longer be accepted' },
};

const INVITATIONS_QUERY = `query Invitations($organizationId: ID!, $status: InvitationStatus, $cursor: String) {
  invitations(organizationId: $organizationId, status: $status, limit: 250, cursor: $cursor) {
    pagingMetadata { cursor }
    result { id accountId status invitedBy createdAt expiresAt updatedAt etag }
  }
}`;

/** The organization's users (who, since when) and its invitations; an owner invites, revokes and removes. */
export function UsersPage({ organizationId }: { organizationId: string }) {
  const access = useAccess();
  const admin = access.administers(organizationId);
  const users = useLoad(() => loadUsers(organizationId), [organizationId]);
  const [status, setStatus] = useState<InvitationStatus | ''>('');
  const invitations = useLoad(
    () => allPages<Invitation>(INVITATIONS_QUERY, 'invitations', { organizationId, status: status || null }),
    [organizationId, status],
  );
  const [removing, setRemoving] = useState<OrganizationUser | null>(null);
  const [revoking, setRevoking] = useState<Invitation | null>(null);
  const me = access.me.principal;

  const nameOf = (accountId: string) => {
    const user = users.data?.find((u) => u.id === accountId);
    return user ? user.displayName || user.email : undefined;
  };

  return (
    <Page title="Users and invitations">
      <p>
        A user is an account of the built-in sign-in that accepted an invitation to this organization. Being a user grants nothing by itself: roles come
        from role assignments and user groups.
      </p>
      <Section title="Users">
        <Loaded state={users}>
          {(rows) => (
            <Table
              caption="Users of the organization"
              rowKey={(u) => u.id}
              empty="The organization has no users."
              rows={rows}
              columns={[
                { label: 'Name', cell: (u) => u.displayName || '—' },
                { label: 'E-mail', cell: (u) => u.email },
                { label: 'Account id', cell: (u) => <code>{u.id}</code> },
                { label: 'Joined', cell: (u) => formatTime(u.joinedAt) },
                ...(admin
                  ? [
                      {
                        label: 'Actions',
                        cell: (u: OrganizationUser) => (
                          <button type="button" className="secondary small" onClick={() => setRemoving(u)} aria-label={`Remove ${u.email} from the organization`}>
                            Remove
                          </button>
                        ),
                      },
                    ]
                  : []),
              ]}
            />
          )}
        </Loaded>
      </Section>

      <Section title="Invitations">
        {admin && <InviteForm organizationId={organizationId} onInvited={() => {
              setStatus('');
              invitations.reload();
            }} />}
        <form className="inline filter" onSubmit={(e) => e.preventDefault()}>
          <Field label="Show invitations">
            {(p) => (
              <select {...p} value={status} onChange={(e) => setStatus(e.target.value as InvitationStatus | '')}>
                <option value="">All</option>
                {STATUSES.map((s) => (
                  <option key={s} value={s}>
                    {STATUS_TEXT[s].label}
                  </option>
                ))}
              </select>
            )}
          </Field>
        </form>
        <Loaded state={invitations}>
          {(rows) => (
            <Table
              caption="Invitations to the organization"
              rowKey={(i) => i.id}
              empty={status ? `No ${STATUS_TEXT[status].label.toLowerCase()} invitations.` : 'Nobody has been invited yet.'}
              rows={rows}
              columns={[
                {
                  label: 'Account',
                  cell: (i) => (
                    <>
                      {nameOf(i.accountId) && <div>{nameOf(i.accountId)}</div>}
                      <code>{i.accountId}</code>
                    </>
                  ),
                },
                {
                  label: 'Status',
                  cell: (i) => (
                    <span className="invitation-status">
                      <span className={`badge ${STATUS_TEXT[i.status].kind}`}>{STATUS_TEXT[i.status].label}</span>{' '}
                      <small className="hint">{STATUS_TEXT[i.status].help}</small>
                    </span>
                  ),
                },
                { label: 'Invited', cell: (i) => formatTime(i.createdAt) },
                { label: 'Expires', cell: (i) => (i.status === 'pending' || i.status === 'expired' ? formatTime(i.expiresAt) : '—') },
                { label: 'Invited by', cell: (i) => <InvitedBy by={i.invitedBy} users={users.data} /> },
                ...(admin
                  ? [
                      {
                        label: 'Actions',
                        cell: (i: Invitation) =>
                          i.status === 'pending' ? (
                            <button type="button" className="secondary small" onClick={() => setRevoking(i)} aria-label={`Revoke the invitation of ${nameOf(i.accountId) ?? i.accountId}`}>
                              Revoke
                            </button>
                          ) : null,
                      },
                    ]
                  : []),
              ]}
            />
          )}
        </Loaded>
      </Section>

      <ConfirmDialog
        title="Remove the user from the organization?"
        open={removing !== null}
        onClose={() => setRemoving(null)}
        confirmLabel="Remove user"
        onConfirm={async () => {
          await gql(`mutation RemoveUser($organizationId: ID!, $userId: ID!) { removeOrganizationUser(organizationId: $organizationId, userId: $userId) }`, {
            organizationId,
            userId: removing!.id,
          });
          users.reload();
        }}
      >
        <p>
          <strong>{removing?.displayName || removing?.email}</strong> ({removing?.email}) loses every role assignment and group membership in this
          organization at once. The account itself stays; inviting it again makes it a user again, without its former roles.
        </p>
        {removing?.id === me.id && <Notice kind="warning">This is you: you lose access to this organization.</Notice>}
      </ConfirmDialog>

      <ConfirmDialog
        title="Revoke the invitation?"
        open={revoking !== null}
        onClose={() => setRevoking(null)}
        confirmLabel="Revoke invitation"
        onConfirm={async () => {
          try {
            await gql(
              `mutation Revoke($organizationId: ID!, $invitationId: ID!, $ifMatch: String) { revokeInvitation(organizationId: $organizationId, invitationId: $invitationId, ifMatch: $ifMatch) { id status } }`,
              { organizationId, invitationId: revoking!.id, ifMatch: revoking!.etag },
            );
          } finally {
            // Whatever the answer (a conflict: it was accepted or changed meanwhile), the list shows the current state.
            invitations.reload();
          }
        }}
      >
        <p>
          The account <code>{revoking?.accountId}</code> can no longer accept this invitation. You can invite it again later.
        </p>
      </ConfirmDialog>
    </Page>
  );
}

function InvitedBy({ by, users }: { by: string; users?: OrganizationUser[] }) {
  const [kind, id] = [by.slice(0, by.indexOf(':')), by.slice(by.indexOf(':') + 1)];
  if (kind === 'user') {
    const user = users?.find((u) => u.id === id);
    return <>{user ? user.displayName || user.email : <code>{by}</code>}</>;
  }
  return (
    <>
      service account <code>{id}</code>
    </>
  );
}

const UUID = '[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}';

function InviteForm({ organizationId, onInvited }: { organizationId: string; onInvited: () => void }) {
  const [accountId, setAccountId] = useState('');
  const [done, setDone] = useState<string | null>(null);
  const { run, busy, error } = useAction(async () => {
    setDone(null);
    const data = await gql<{ inviteUser: Invitation }>(
      `mutation Invite($organizationId: ID!, $input: InviteUserInput!) { inviteUser(organizationId: $organizationId, input: $input) { id accountId status } }`,
      { organizationId, input: { accountId: accountId.trim() } },
    );
    setDone(data.inviteUser.accountId);
    setAccountId('');
    onInvited();
  });
  return (
    <form
      className="invite"
      onSubmit={(e) => {
        e.preventDefault();
        run();
      }}
    >
      <Field
        label="Account id of the person to invite"
        hint="Invitations go to an account of the built-in sign-in, by its id (not its e-mail address): the person signs in to this console, finds the id on the Who am I page as Subject, and sends it to you. The invitation stays pending until they accept it."
      >
        {(p) => (
          <input
            {...p}
            value={accountId}
            onChange={(e) => setAccountId(e.target.value)}
            required
            pattern={`\\s*${UUID}\\s*`}
            title="An account id: 36 letters, digits and dashes, as on the person's Who am I page"
            placeholder="e.g. 3f2b8c1e-…"
            autoComplete="off"
            spellCheck={false}
          />
        )}
      </Field>
      <div className="buttons">
        <button type="submit" disabled={busy}>
          Invite
        </button>
      </div>
      <ErrorBox error={error} />
      {done && (
        <Notice kind="success">
          Invited <code>{done}</code>. The invitation is pending until the person accepts it.
        </Notice>
      )}
    </form>
  );
}
