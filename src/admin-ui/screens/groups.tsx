import { useEffect, useState } from 'react';
import { allPages, gql } from '../api';
import { useAccess } from '../me';
import { Link, navigate, seg } from '../router';
import { Checkbox, ConfirmDialog, Dialog, DialogButtons, ErrorBox, Field, Loaded, Notice, Page, Section, Table, formatTime, useAction, useLoad } from '../ui';
import { NameAndDescriptionForm, loadServiceAccounts, loadUsers } from './people';
import './people.css';

interface UserGroup {
  id: string;
  name: string;
  description?: string | null;
  createdAt: string;
  updatedAt: string;
  etag: string;
}

interface Member {
  id: string;
  type: 'user' | 'service-account';
  email?: string | null;
  displayName?: string | null;
  name?: string | null;
  addedAt: string;
}

const GROUP_FIELDS = 'id name description createdAt updatedAt etag';

/** The server's rule (user-groups service): `group@` and at least one character more; the form says so before it asks. */
const NAME_PATTERN = 'group@.+';
const NAME_PROBLEM = "The name must start with group@ followed by the group's name.";
const NAME_HINT = "Starts with group@ followed by the group's name, e.g. group@operators. At most 200 characters, unique in the organization.";

const GROUPS_QUERY = `query UserGroups($organizationId: ID!, $cursor: String) {
  userGroups(organizationId: $organizationId, limit: 250, cursor: $cursor) { pagingMetadata { cursor } result { ${GROUP_FIELDS} } }
}`;

const MEMBERS_QUERY = `query Members($organizationId: ID!, $groupId: ID!, $cursor: String) {
  userGroupMembers(organizationId: $organizationId, groupId: $groupId, limit: 250, cursor: $cursor) {
    pagingMetadata { cursor } result { id type email displayName name addedAt }
  }
}`;

const groupPath = (organizationId: string, groupId?: string) => `/org/${seg(organizationId)}/groups${groupId ? `/${seg(groupId)}` : ''}`;

/** The name input, with the rule in its hint and a plain message when the browser refuses the pattern. */
function GroupNameField({ value, onChange }: { value: string; onChange: (v: string) => void }) {
  const [problem, setProblem] = useState(false);
  return (
    <>
      <Field label="Name" hint={NAME_HINT}>
        {(p) => (
          <input
            {...p}
            value={value}
            onChange={(e) => {
              e.target.setCustomValidity('');
              onChange(e.target.value);
              if (problem && e.target.validity.valid) setProblem(false);
            }}
            onInvalid={(e) => {
              if (e.currentTarget.validity.patternMismatch) e.currentTarget.setCustomValidity(NAME_PROBLEM);
              setProblem(true);
            }}
            required
            pattern={NAME_PATTERN}
            maxLength={200}
            autoComplete="off"
            spellCheck={false}
            aria-invalid={problem || undefined}
          />
        )}
      </Field>
      {problem && (
        <p className="alert error" role="alert">
          {NAME_PROBLEM}
        </p>
      )}
    </>
  );
}

/** The organization's user groups: a role assigned to a group holds for each member. */
export function GroupsPage({ organizationId }: { organizationId: string }) {
  const admin = useAccess().administers(organizationId);
  const groups = useLoad(() => allPages<UserGroup>(GROUPS_QUERY, 'userGroups', { organizationId }), [organizationId]);
  const [creating, setCreating] = useState(false);
  return (
    <Page
      title="User groups"
      actions={
        admin && (
          <button type="button" onClick={() => setCreating(true)}>
            New user group
          </button>
        )
      }
    >
      <p>
        A user group gathers users and service accounts of the organization. A role assigned to the group (under Role assignments) holds for every
        member.
      </p>
      {admin && <CreateGroup open={creating} onClose={() => setCreating(false)} organizationId={organizationId} onCreated={(g) => navigate(groupPath(organizationId, g.id))} />}
      <Section title="All user groups">
        <Loaded state={groups}>
          {(rows) => (
            <Table
              caption="User groups"
              rowKey={(g) => g.id}
              empty="The organization has no user groups."
              rows={rows}
              columns={[
                { label: 'Name', cell: (g) => <Link to={groupPath(organizationId, g.id)}>{g.name}</Link> },
                { label: 'Description', cell: (g) => g.description || '—' },
                { label: 'Created', cell: (g) => formatTime(g.createdAt) },
              ]}
            />
          )}
        </Loaded>
      </Section>
    </Page>
  );
}

function CreateGroup({ open, onClose, organizationId, onCreated }: { open: boolean; onClose: () => void; organizationId: string; onCreated: (group: UserGroup) => void }) {
  const [name, setName] = useState('group@');
  const [description, setDescription] = useState('');
  const { run, busy, error, setError } = useAction(async () => {
    const data = await gql<{ createUserGroup: UserGroup }>(
      `mutation CreateUserGroup($organizationId: ID!, $input: UserGroupInput!) { createUserGroup(organizationId: $organizationId, input: $input) { ${GROUP_FIELDS} } }`,
      { organizationId, input: { name, description: description.trim() || null } },
    );
    onCreated(data.createUserGroup);
  });
  useEffect(() => {
    if (open) setError(undefined);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [open]);
  return (
    <Dialog title="New user group" open={open} onClose={onClose}>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          run();
        }}
      >
        <GroupNameField value={name} onChange={setName} />
        <Field label="Description (optional)">{(p) => <textarea {...p} value={description} onChange={(e) => setDescription(e.target.value)} maxLength={2000} />}</Field>
        <ErrorBox error={error} />
        <DialogButtons label="Create user group" disabled={busy} onCancel={onClose} />
      </form>
    </Dialog>
  );
}

/** One group: its name and description, and its members (an owner adds and removes them). */
export function GroupPage({ organizationId, groupId }: { organizationId: string; groupId: string }) {
  const admin = useAccess().administers(organizationId);
  const group = useLoad(
    async () =>
      (
        await gql<{ userGroup: UserGroup }>(`query UserGroup($organizationId: ID!, $groupId: ID!) { userGroup(organizationId: $organizationId, groupId: $groupId) { ${GROUP_FIELDS} } }`, {
          organizationId,
          groupId,
        })
      ).userGroup,
    [organizationId, groupId],
  );
  const members = useLoad(() => allPages<Member>(MEMBERS_QUERY, 'userGroupMembers', { organizationId, groupId }), [organizationId, groupId]);
  const [deleting, setDeleting] = useState(false);
  const [removing, setRemoving] = useState<Member | null>(null);

  return (
    <Page
      title={group.data ? `User group ${group.data.name}` : 'User group'}
      actions={
        admin &&
        group.data && (
          <button type="button" className="danger" onClick={() => setDeleting(true)}>
            Delete user group
          </button>
        )
      }
    >
      <p>
        <Link to={groupPath(organizationId)}>All user groups</Link>
      </p>
      <Loaded state={group}>
        {(g) => (
          <>
            <dl className="facts">
              <dt>Id</dt>
              <dd>
                <code>{g.id}</code>
              </dd>
              <dt>Created</dt>
              <dd>{formatTime(g.createdAt)}</dd>
              <dt>Changed</dt>
              <dd>{formatTime(g.updatedAt)}</dd>
              {!admin && (
                <>
                  <dt>Description</dt>
                  <dd>{g.description || '—'}</dd>
                </>
              )}
            </dl>
            {admin && (
              <Section title="Name and description">
                <EditGroup key={g.etag} organizationId={organizationId} group={g} onSaved={group.reload} />
              </Section>
            )}
            <Section title="Members">
              <Loaded state={members}>
                {(rows) => (
                  <>
                    <Table
                      caption={`Members of ${g.name}`}
                      rowKey={(m) => `${m.type}:${m.id}`}
                      empty="The group has no members."
                      rows={rows}
                      columns={[
                        { label: 'Member', cell: (m) => memberName(m) },
                        { label: 'Kind', cell: (m) => (m.type === 'user' ? 'User' : 'Service account') },
                        { label: 'Id', cell: (m) => <code>{m.id}</code> },
                        { label: 'Added', cell: (m) => formatTime(m.addedAt) },
                        ...(admin
                          ? [
                              {
                                label: 'Actions',
                                cell: (m: Member) => (
                                  <button type="button" className="secondary small" onClick={() => setRemoving(m)} aria-label={`Remove ${memberName(m)} from the group`}>
                                    Remove
                                  </button>
                                ),
                              },
                            ]
                          : []),
                      ]}
                    />
                    {admin && <AddMembers organizationId={organizationId} groupId={g.id} members={rows} onAdded={members.reload} />}
                  </>
                )}
              </Loaded>
            </Section>
          </>
        )}
      </Loaded>

      <ConfirmDialog
        title={`Delete user group ${group.data?.name ?? ''}?`}
        open={deleting}
        onClose={() => setDeleting(false)}
        confirmLabel="Delete user group"
        onConfirm={async () => {
          await gql(`mutation DeleteUserGroup($organizationId: ID!, $groupId: ID!, $ifMatch: String) { deleteUserGroup(organizationId: $organizationId, groupId: $groupId, ifMatch: $ifMatch) }`, {
            organizationId,
            groupId,
            ifMatch: group.data!.etag,
          });
          navigate(groupPath(organizationId), true);
        }}
      >
        <p>Its members lose the roles the group gave them, at once; the group&apos;s role assignments are removed with it. This cannot be undone.</p>
      </ConfirmDialog>
      <ConfirmDialog
        title="Remove the member from the group?"
        open={removing !== null}
        onClose={() => setRemoving(null)}
        confirmLabel="Remove member"
        onConfirm={async () => {
          await gql(`mutation RemoveMember($organizationId: ID!, $groupId: ID!, $memberId: ID!) { removeUserGroupMember(organizationId: $organizationId, groupId: $groupId, memberId: $memberId) }`, {
            organizationId,
            groupId,
            memberId: removing!.id,
          });
          members.reload();
        }}
      >
        <p>{removing && `${memberName(removing)} loses the roles this group gives, at once.`}</p>
      </ConfirmDialog>
    </Page>
  );
}

const memberName = (m: Member) => {
  if (m.type !== 'user') return m.name ?? m.id;
  return m.displayName ? `${m.displayName} (${m.email})` : (m.email ?? m.id);
};

function EditGroup({ organizationId, group, onSaved }: { organizationId: string; group: UserGroup; onSaved: () => void }) {
  const ids = { organizationId, groupId: group.id };
  return (
    <NameAndDescriptionForm
      loaded={group}
      save={(edit, ifMatch) =>
        gql(
          `mutation UpdateUserGroup($organizationId: ID!, $groupId: ID!, $ifMatch: String, $input: UserGroupPatch!) {
          updateUserGroup(organizationId: $organizationId, groupId: $groupId, ifMatch: $ifMatch, input: $input) { id etag } }`,
          { ...ids, ifMatch, input: { name: edit.name, description: edit.description.trim() || null } },
        )
      }
      current={async () =>
        (await gql<{ userGroup: UserGroup }>(`query UserGroup($organizationId: ID!, $groupId: ID!) { userGroup(organizationId: $organizationId, groupId: $groupId) { ${GROUP_FIELDS} } }`, ids)).userGroup
      }
      onSaved={onSaved}
      nameField={(value, onChange) => <GroupNameField value={value} onChange={onChange} />}
    />
  );
}

/** Adds users and service accounts of the organization, ticked in lists of those not yet members. */
function AddMembers({ organizationId, groupId, members, onAdded }: { organizationId: string; groupId: string; members: Member[]; onAdded: () => void }) {
  const me = useAccess().me.principal;
  const candidates = useLoad(async () => {
    const [users, accounts] = await Promise.all([loadUsers(organizationId), loadServiceAccounts(organizationId)]);
    return { users, accounts };
  }, [organizationId]);
  const [chosen, setChosen] = useState<Set<string>>(new Set());
  const isMember = (type: string, id: string) => members.some((m) => m.type === type && m.id === id);
  // Nobody adds itself to a group: that would grant it the group's roles (the server refuses it too).
  const isMe = (type: string, id: string) => (type === 'user' ? me.type === 'user' : me.type === 'service-account') && me.id === id;
  const toggle = (key: string, on: boolean) =>
    setChosen((current) => {
      const next = new Set(current);
      if (on) next.add(key);
      else next.delete(key);
      return next;
    });
  const { run, busy, error } = useAction(async () => {
    const refs = [...chosen].map((key) => ({ type: key.slice(0, key.indexOf(':')), id: key.slice(key.indexOf(':') + 1) }));
    await gql(
      `mutation AddMembers($organizationId: ID!, $groupId: ID!, $input: UserGroupMembersInput!) { addUserGroupMembers(organizationId: $organizationId, groupId: $groupId, input: $input) { id } }`,
      { organizationId, groupId, input: { members: refs } },
    );
    setChosen(new Set());
    onAdded();
  });
  return (
    <Section title="Add members">
      <Loaded state={candidates}>
        {({ users, accounts }) => {
          const freeUsers = users.filter((u) => !isMember('user', u.id) && !isMe('user', u.id));
          const freeAccounts = accounts.filter((a) => !isMember('service-account', a.id) && !isMe('service-account', a.id));
          if (!freeUsers.length && !freeAccounts.length) return <p className="empty">Every user and service account of the organization is a member already (you cannot add yourself).</p>;
          return (
            <form
              onSubmit={(e) => {
                e.preventDefault();
                run();
              }}
            >
              {freeUsers.length > 0 && (
                <fieldset className="choose">
                  <legend>Users</legend>
                  {freeUsers.map((u) => (
                    <Checkbox
                      key={u.id}
                      label={u.displayName ? `${u.displayName} (${u.email})` : u.email}
                      checked={chosen.has(`user:${u.id}`)}
                      onChange={(on) => toggle(`user:${u.id}`, on)}
                    />
                  ))}
                </fieldset>
              )}
              {freeAccounts.length > 0 && (
                <fieldset className="choose">
                  <legend>Service accounts</legend>
                  {freeAccounts.map((a) => (
                    <Checkbox key={a.id} label={a.name} checked={chosen.has(`service-account:${a.id}`)} onChange={(on) => toggle(`service-account:${a.id}`, on)} />
                  ))}
                </fieldset>
              )}
              <Notice>You cannot add yourself: that would give you the group&apos;s roles.</Notice>
              <ErrorBox error={error} />
              <div className="buttons">
                <button type="submit" disabled={busy || chosen.size === 0}>
                  Add {chosen.size || ''} selected
                </button>
              </div>
            </form>
          );
        }}
      </Loaded>
    </Section>
  );
}
