import type * as OidcProvider from 'oidc-provider';

export type OidcProviderModule = typeof OidcProvider;

let loaded: Promise<OidcProviderModule> | undefined;

/**
 * oidc-provider, loaded once. It is an ES module; `import()` loads it from CommonJS builds and tests alike. On
 * Node 20 (supported by this server, not by the library's authors) it prints an "unsupported runtime" warning
 * to stderr when loaded: that line alone is dropped, as the server logs JSON only. Everything else it says
 * passes through.
 */
export function loadOidcProvider(): Promise<OidcProviderModule> {
  loaded ??= (async () => {
    const warn = console.warn;
    console.warn = (...args: unknown[]) => {
      if (typeof args[0] === 'string' && args[0].includes('oidc-provider WARNING: Unsupported runtime')) return;
      warn.apply(console, args);
    };
    try {
      return await import('oidc-provider');
    } finally {
      console.warn = warn;
    }
  })();
  return loaded;
}
