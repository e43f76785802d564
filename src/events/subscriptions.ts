import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { Duplex } from 'node:stream';
import { GraphQLError, GraphQLSchema, getOperationAST, parse, specifiedRules, validate } from 'graphql';
import { useServer } from 'graphql-ws/use/ws';
import type { Logger } from 'pino';
import { WebSocketServer } from 'ws';
import { Context, Services, createContext } from '../graphql/context';
import { MAX_TOKENS, operationLimits, stringArgumentLimits } from '../graphql/limits';

/** The largest message a subscriber may send (a subscribe message is a small GraphQL document). */
const MAX_MESSAGE_BYTES = 64 * 1024;

/** The token of a connection: `Authorization` (or `authorization`) in the connection_init payload, as a header would carry it. */
function authorizationOf(params: Readonly<Record<string, unknown>> | undefined): string | undefined {
  const value = params?.Authorization ?? params?.authorization;
  return typeof value === 'string' && value ? value : undefined;
}

/**
 * GraphQL subscriptions over WebSocket (graphql-ws) at `/graphql` of `server`: only subscription operations (queries
 * and mutations go over HTTP, where their limits and logging are), parsed and validated with the same limits as
 * HTTP requests, executed with a context built like an HTTP request's, with the connection's token. A connection
 * whose token is invalid is refused at once (4403). Other upgrade paths get 404.
 */
export function serveSubscriptions(server: http.Server, schema: GraphQLSchema, services: Services, log: Logger): { close(): Promise<void> } {
  const wss = new WebSocketServer({ noServer: true, maxPayload: MAX_MESSAGE_BYTES });
  server.on('upgrade', (req: http.IncomingMessage, socket: Duplex, head: Buffer) => {
    const path = (req.url ?? '').split('?')[0];
    if (path !== '/graphql') {
      socket.end('HTTP/1.1 404 Not Found\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
      return;
    }
    wss.handleUpgrade(req, socket, head, (ws) => wss.emit('connection', ws, req));
  });
  const contextOf = (params: Readonly<Record<string, unknown>> | undefined): Context =>
    createContext(services, randomUUID(), log.child({ transport: 'graphql-ws' }), authorizationOf(params));
  const handle = useServer<Record<string, unknown>>(
    {
      schema,
      onConnect: async (ctx) => {
        if (!authorizationOf(ctx.connectionParams)) return true;
        // A token that does not verify closes the connection now rather than failing each subscription later.
        return contextOf(ctx.connectionParams).principal().then(
          () => true,
          () => false,
        );
      },
      onSubscribe: (ctx, _id, payload) => {
        let document;
        try {
          document = parse(payload.query, { maxTokens: MAX_TOKENS });
        } catch (err) {
          return [err instanceof GraphQLError ? err : new GraphQLError('The document cannot be parsed.')];
        }
        const errors = validate(schema, document, [...specifiedRules, operationLimits, stringArgumentLimits]);
        if (errors.length) return errors;
        const operation = getOperationAST(document, payload.operationName);
        if (operation?.operation !== 'subscription') {
          return [new GraphQLError('Only subscriptions are served over WebSocket; send queries and mutations to POST /graphql.', { extensions: { code: 'BAD_REQUEST' } })];
        }
        return {
          schema,
          document,
          operationName: payload.operationName,
          variableValues: payload.variables,
          contextValue: contextOf(ctx.connectionParams),
        };
      },
    },
    wss,
  );
  return {
    close: async () => {
      for (const client of wss.clients) client.close(1001, 'Going away');
      await handle.dispose();
      await new Promise<void>((resolve) => wss.close(() => resolve()));
    },
  };
}
