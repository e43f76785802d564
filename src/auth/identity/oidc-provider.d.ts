/**
 * The part of oidc-provider (v9, ESM, ships no types) this server uses. Only what src/auth/identity touches is
 * declared; the library's own documentation (its lib/helpers/defaults.js) is the reference for the rest.
 */
declare module 'oidc-provider' {
  import type { IncomingMessage, ServerResponse } from 'node:http';
  import type Koa from 'koa';

  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  type Any = any;

  export interface AdapterPayload {
    [key: string]: unknown;
    grantId?: string;
    userCode?: string;
    uid?: string;
    consumed?: number;
  }

  export interface Adapter {
    upsert(id: string, payload: AdapterPayload, expiresIn: number | undefined): Promise<void>;
    find(id: string): Promise<AdapterPayload | undefined>;
    findByUserCode(userCode: string): Promise<AdapterPayload | undefined>;
    findByUid(uid: string): Promise<AdapterPayload | undefined>;
    consume(id: string): Promise<void>;
    destroy(id: string): Promise<void>;
    revokeByGrantId(grantId: string): Promise<void>;
  }

  export type AdapterConstructor = new (model: string) => Adapter;

  export interface Account {
    accountId: string;
    claims(use: string, scope: string, claims: unknown, rejected: string[]): Promise<Record<string, unknown>> | Record<string, unknown>;
  }

  export interface ResourceServer {
    scope: string;
    audience?: string;
    accessTokenTTL?: number;
    accessTokenFormat?: 'opaque' | 'jwt';
    jwt?: { sign?: { alg?: string; kid?: string } };
  }

  /** The Koa context oidc-provider runs its routes with (`ctx.oidc` is its own state). */
  export type KoaContextWithOIDC = Koa.Context & { oidc: Any };

  export interface Configuration {
    [key: string]: Any;
  }

  export interface InteractionResults {
    [key: string]: unknown;
  }

  export interface Interaction {
    uid: string;
    jti: string;
    exp: number;
    prompt: { name: string; reasons: string[]; details: Record<string, Any> };
    params: Record<string, Any>;
    session?: { accountId: string; uid?: string };
    result?: Record<string, Any>;
    grantId?: string;
    returnTo: string;
    persist(): Promise<string>;
  }

  export class Grant {
    constructor(properties: { accountId: string; clientId: string });
    jti: string;
    addOIDCScope(scope: string): void;
    addResourceScope(resource: string, scope: string): void;
    save(ttl?: number): Promise<string>;
    static find(id: string): Promise<Grant | undefined>;
  }

  export class Provider extends Koa {
    constructor(issuer: string, configuration?: Configuration);
    readonly issuer: string;
    Client: Any;
    Grant: typeof Grant;
    interactionDetails(req: IncomingMessage, res: ServerResponse): Promise<Interaction>;
    interactionResult(req: IncomingMessage, res: ServerResponse, result: InteractionResults, options?: { mergeWithLastSubmission?: boolean }): Promise<string>;
    interactionFinished(req: IncomingMessage, res: ServerResponse, result: InteractionResults, options?: { mergeWithLastSubmission?: boolean }): Promise<void>;
    static readonly ctx: KoaContextWithOIDC | undefined;
  }

  export namespace errors {
    class OIDCProviderError extends Error {
      constructor(status: number, message: string);
      error: string;
      error_description?: string;
      status: number;
      statusCode: number;
      expose: boolean;
    }
    class InvalidScope extends OIDCProviderError {
      constructor(description: string, scope: string);
    }
    class InvalidClientAuth extends OIDCProviderError {
      constructor(detail: string);
    }
    class InvalidTarget extends OIDCProviderError {
      constructor(description?: string);
    }
    class InvalidRequest extends OIDCProviderError {
      constructor(description?: string, code?: number);
    }
    class SessionNotFound extends OIDCProviderError {}
  }

  export default Provider;
}
