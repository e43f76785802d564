/** What the server tells the page (`/admin/config.js`): where it is, and where users sign in. */
export interface SignInProvider {
  id: string;
  issuer: string;
  clientId: string;
  name: string;
}

export interface AdminConfig {
  /** MANAGE_URL's path prefix ('' without one): the console is at `{base}/admin`, GraphQL at `{base}/graphql`. */
  base: string;
  login: { issuer: string; clientId: string; redirectUri: string };
  /** The organization whose sign-in page this is (`/admin?organization={id}`): its identity providers are offered. */
  organization: string | null;
  providers: SignInProvider[];
}

declare global {
  interface Window {
    ADMIN_CONFIG: AdminConfig;
  }
}

export const config: AdminConfig = window.ADMIN_CONFIG;
