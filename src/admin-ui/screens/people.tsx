import { ReactNode, useState } from 'react';
import { ApiError, allPages } from '../api';
import { ChangedField, ConflictPanel, ErrorBox, Field, useAction } from '../ui';

/** What the organization "people" screens (users, service accounts, groups) load alike. */

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

interface Named {
  name: string;
  description?: string | null;
}

/**
 * The name-and-description form of a user group or a service account. `save` sends the edit with the ETag as
 * loaded; when someone changed it meanwhile, `current` reads it as it is now and the form shows what changed.
 */
export function NameAndDescriptionForm({
  loaded,
  save,
  current,
  onSaved,
  nameField,
}: {
  loaded: Named & { etag: string };
  save: (edit: { name: string; description: string }, ifMatch: string) => Promise<unknown>;
  current: () => Promise<Named>;
  onSaved: () => void;
  nameField: (value: string, onChange: (value: string) => void) => ReactNode;
}) {
  const [name, setName] = useState(loaded.name);
  const [description, setDescription] = useState(loaded.description ?? '');
  const [conflict, setConflict] = useState<ChangedField[] | null>(null);
  const { run, busy, error } = useAction(async () => {
    setConflict(null);
    try {
      await save({ name, description }, loaded.etag);
      onSaved();
    } catch (err) {
      if (!(err instanceof ApiError && err.isConflict)) throw err;
      const now = await current();
      setConflict([
        { label: 'Name', loaded: loaded.name, current: now.name, mine: name },
        { label: 'Description', loaded: loaded.description ?? '', current: now.description ?? '', mine: description },
      ]);
    }
  });
  const unchanged = name === loaded.name && description === (loaded.description ?? '');
  return (
    <form
      onSubmit={(e) => {
        e.preventDefault();
        run();
      }}
    >
      {nameField(name, setName)}
      <Field label="Description">{(p) => <textarea {...p} value={description} onChange={(e) => setDescription(e.target.value)} maxLength={2000} />}</Field>
      {conflict && <ConflictPanel fields={conflict} onReload={onSaved} />}
      <ErrorBox error={error} />
      <div className="buttons">
        <button type="submit" disabled={busy || unchanged}>
          Save name and description
        </button>
      </div>
    </form>
  );
}
