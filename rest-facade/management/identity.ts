import { ManagementRouteSpec } from './route';

/** The built-in identity service's administration (owners of the platform organization). */
export const identityRoutes: ManagementRouteSpec[] = [
  {
    method: 'POST',
    path: '/identity/signing-keys/rotate',
    summary:
      'Rotate the signing key of the built-in identity service: a new key signs from now on, the previous one stays published (JWKS) until every token it signed has expired. Owners of the platform organization only.',
    tag: 'Identity service',
    operation: 'mutation RotateSigningKey { rotateSigningKey { kid retiredKid retiredKeyPublishedUntil } }',
    variables: () => ({}),
    respond: (data: { rotateSigningKey: unknown }) => ({ status: 200, body: data.rotateSigningKey }),
  },
];
