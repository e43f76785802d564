import type Router from '@koa/router';
import type { Json } from './bundle';

export const OPENAPI_VERSION = '3.1.0';
export const OAUTH_SCOPES = { openid: 'OpenID Connect sign-in', api_access: 'Access to the platform APIs' };

/** A route a router registers: its method and its path in the router's `:param` syntax. */
export interface ServedRoute {
  method: string;
  path: string;
}

/** What a @koa/router actually registers: every method of every layer (HEAD, added for GET, left out). */
export function servedRoutes(router: Router): ServedRoute[] {
  const routes: ServedRoute[] = [];
  for (const layer of router.stack) {
    if (typeof layer.path !== 'string') continue;
    for (const method of layer.methods) if (method !== 'HEAD') routes.push({ method, path: layer.path });
  }
  return routes;
}

/** `/shells/:aasIdentifier` -> `/shells/{aasIdentifier}`. */
export const openApiPath = (path: string) => path.replace(/:([A-Za-z0-9_]+)/g, '{$1}');

/** The path with every parameter as `{}`, for matching paths whose parameters are named differently. */
export const pathShape = (path: string) => openApiPath(path).replace(/\{[^}]+\}/g, '{}');

/**
 * The two ways to authorize: a bearer token (an access token of the built-in identity service, or of a trusted
 * issuer), or the built-in identity service's OAuth 2.0 flows (authorization code with PKCE for people, client
 * credentials for service accounts).
 */
export function securitySchemes(manageUrl: string): Record<string, Json> {
  return {
    bearer: {
      type: 'http',
      scheme: 'bearer',
      bearerFormat: 'JWT',
      description: 'An access token of the built-in identity service (or of an issuer the organization trusts).',
    },
    oauth2: {
      type: 'oauth2',
      description:
        'The built-in identity service. Interactive clients use the authorization code flow with PKCE (public client `console` for this console); service accounts use client credentials (client id = the service account id).',
      flows: {
        authorizationCode: { authorizationUrl: `${manageUrl}/oidc/auth`, tokenUrl: `${manageUrl}/oidc/token`, scopes: OAUTH_SCOPES },
        // A service account's token has no OpenID Connect sign-in: its one scope is the API's.
        clientCredentials: { tokenUrl: `${manageUrl}/oidc/token`, scopes: { api_access: OAUTH_SCOPES.api_access } },
      },
    },
  };
}

/** Either scheme will do; what the APIs need of an OAuth 2.0 token is the API's scope. */
export const SECURITY = [{ bearer: [] }, { oauth2: ['api_access'] }];
