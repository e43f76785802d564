import { useEffect, useState } from 'react';
import { whenUnauthenticated } from './api';
import { Session, currentSession, signIn, signInPage, signOut } from './auth';
import { config } from './config';
import { Access, MeProvider, loadMe } from './me';
import { Link, RouteProvider, useRoute } from './router';
import { ROUTES, organizationOf } from './routes';
import { ErrorBox, Loaded, useLoad } from './ui';

/** Not signed in: the built-in sign-in, and each organization's identity provider that offers one. */
function SignIn({ problem }: { problem?: unknown }) {
  const [error, setError] = useState<unknown>(problem);
  useEffect(() => {
    document.title = 'Sign in · Admin console';
  }, []);
  return (
    <main id="main" className="sign-in">
      <h1>Admin console</h1>
      <p>Manage organizations, users, service accounts, roles and tenants, and look into the tenants' data.</p>
      <ErrorBox error={error} />
      <div className="buttons column">
        <button type="button" onClick={() => signIn().catch(setError)}>
          Sign in
        </button>
        {config.providers.map((p) => (
          <button type="button" className="secondary" key={p.id} onClick={() => signIn(p).catch(setError)}>
            Sign in with {p.name} <span className="issuer-host">({new URL(p.issuer).host})</span>
          </button>
        ))}
      </div>
    </main>
  );
}

function Navigation({ access, organizationId }: { access: Access; organizationId?: string }) {
  const organizations = access.me.organizations;
  const org = organizationId ? `/org/${organizationId}` : undefined;
  return (
    <nav aria-label="Main">
      <ul>
        <li>
          <Link to="">Who am I</Link>
        </li>
      </ul>
      {organizations.map((o) =>
        o.id === organizationId ? (
          <div key={o.id}>
            <h2 className="nav-head">{o.name}</h2>
            <ul>
              <li>
                <Link to={`${org}/tenants`}>Tenants</Link>
              </li>
              <li>
                <Link to={`${org}/users`}>Users and invitations</Link>
              </li>
              <li>
                <Link to={`${org}/service-accounts`}>Service accounts</Link>
              </li>
              <li>
                <Link to={`${org}/groups`}>User groups</Link>
              </li>
              <li>
                <Link to={`${org}/roles`}>Role assignments</Link>
              </li>
              <li>
                <Link to={`${org}/identity-providers`}>Identity providers</Link>
              </li>
            </ul>
          </div>
        ) : (
          <ul key={o.id}>
            <li>
              <Link to={`/org/${o.id}/tenants`}>{o.name}</Link>
            </li>
          </ul>
        ),
      )}
    </nav>
  );
}

function Shell({ session, access, reload }: { session: Session; access: Access; reload: () => void }) {
  const { path } = useRoute();
  const organizationId = organizationOf(path);
  const who = access.me.principal.displayName || access.me.principal.email || access.me.principal.id;
  const route = ROUTES.find((r) => r.match(path));
  return (
    <MeProvider access={access} reload={reload}>
      <a className="skip" href="#main">
        Skip to content
      </a>
      <header className="top">
        <Link to="" className="brand">
          Asset platform · Admin
        </Link>
        <span className="who">
          Signed in as <strong>{who}</strong>
          {session.providerId ? ' (identity provider)' : ''}
        </span>
        <button
          type="button"
          className="secondary small"
          onClick={() => {
            signOut();
            location.assign(signInPage(session));
          }}
        >
          Sign out
        </button>
      </header>
      <div className="layout">
        <Navigation access={access} organizationId={organizationId} />
        <main id="main">{route ? route.render(route.match(path)!) : <NotFound />}</main>
      </div>
    </MeProvider>
  );
}

function NotFound() {
  return (
    <>
      <h1>Not found</h1>
      <p>
        There is no such page in the console. <Link to="">Start page</Link>
      </p>
    </>
  );
}

function SignedIn({ session }: { session: Session }) {
  const me = useLoad(loadMe, []);
  return <Loaded state={me}>{(data) => <Shell session={session} access={new Access(data)} reload={me.reload} />}</Loaded>;
}

export function App({ problem }: { problem?: unknown }) {
  const [session, setSession] = useState(currentSession);
  useEffect(() => {
    whenUnauthenticated(() => {
      signOut();
      setSession(null);
    });
  }, []);
  return <RouteProvider>{session ? <SignedIn session={session} /> : <SignIn problem={problem} />}</RouteProvider>;
}
