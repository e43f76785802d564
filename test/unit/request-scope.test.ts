import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { ClientGoneError, clientGoneSignal, requestSignal, whileClientHere } from '../../src/common/client-gone';
import { ReadBudget, readBudget, withReadBudget } from '../../src/db/read-budget';
import { AppError } from '../../src/graphql/errors';

/** What a request carries for the code below it: its client-gone signal (made when first asked for) and its read budget. */

const servers: http.Server[] = [];
afterEach(() => {
  for (const server of servers.splice(0)) server.close();
});

/** A server whose one request is handed to `handle`; answers its port. */
async function serve(handle: (req: http.IncomingMessage, res: http.ServerResponse) => void): Promise<number> {
  const server = http.createServer(handle);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

const closed = (res: http.ServerResponse) => new Promise<void>((resolve) => (res.closed ? resolve() : res.once('close', () => resolve())));

describe('the client-gone signal, made when first asked for', () => {
  it('asked for after the client went before its answer, it has fired already', async () => {
    let settle!: (signal: AbortSignal) => void;
    const asked = new Promise<AbortSignal>((resolve) => (settle = resolve));
    const port = await serve((_req, res) => {
      // The request's work under its response, as the hot reads run it; the signal is asked for only after the close.
      whileClientHere(res, () => closed(res).then(() => settle(requestSignal()!)));
    });
    const client = http.get({ host: '127.0.0.1', port, path: '/' });
    client.on('error', () => undefined);
    setTimeout(() => client.destroy(), 50);
    const signal = await asked;
    expect(signal.aborted).toBe(true);
    expect(signal.reason).toBeInstanceOf(ClientGoneError);
  });

  it('asked for after the answer was sent, it never fires; asked for before, it fires when the client goes', async () => {
    const signals: AbortSignal[] = [];
    let done!: () => void;
    const finished = new Promise<void>((resolve) => (done = resolve));
    const port = await serve((req, res) => {
      if (req.url === '/answered') {
        res.end('ok');
        void closed(res).then(() => {
          signals[0] = clientGoneSignal(res);
          done();
        });
      } else {
        whileClientHere(res, () => {
          signals[1] = requestSignal()!;
          expect(signals[1].aborted).toBe(false);
        });
      }
    });
    await fetch(`http://127.0.0.1:${port}/answered`).then((r) => r.text());
    await finished;
    expect(signals[0].aborted).toBe(false);

    const client = http.get({ host: '127.0.0.1', port, path: '/waiting' });
    client.on('error', () => undefined);
    while (!signals[1]) await new Promise((resolve) => setTimeout(resolve, 10));
    client.destroy();
    while (!signals[1].aborted) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(signals[1].reason).toBeInstanceOf(ClientGoneError);
  });

  it('given a signal itself, that is the signal of the code below', () => {
    const controller = new AbortController();
    expect(whileClientHere(controller.signal, () => requestSignal())).toBe(controller.signal);
    expect(requestSignal()).toBeUndefined();
  });
});

describe('a read answered from memory, charged to the read budget at once', () => {
  const refusal = (work: () => unknown) => {
    try {
      work();
    } catch (err) {
      return (err as AppError).extensions.code;
    }
    return undefined;
  };

  it('charges what fits, and refuses what does not as `run` does (RESPONSE_TOO_LARGE)', async () => {
    const budget = new ReadBudget(100);
    expect(budget.idle).toBe(true);
    budget.chargeWhole(60);
    expect(budget.remaining).toBe(40);
    expect(refusal(() => budget.chargeWhole(41))).toBe('RESPONSE_TOO_LARGE');
    budget.chargeWhole(40);
    expect(refusal(() => budget.chargeWhole(0))).toBe('RESPONSE_TOO_LARGE');
    await expect(budget.run(async () => 1)).rejects.toMatchObject({ extensions: { code: 'RESPONSE_TOO_LARGE' } });
  });

  it('is not idle while a read of `run` is under way or waiting, and idle again once all settled, refused ones too', async () => {
    const budget = new ReadBudget(100);
    let release!: () => void;
    const first = budget.run(() => new Promise<number>((resolve) => (release = () => resolve(1))));
    const second = budget.run(async () => {
      throw new Error('refused');
    });
    expect(budget.idle).toBe(false);
    await Promise.resolve();
    release();
    await first;
    await expect(second).rejects.toThrow('refused');
    expect(budget.idle).toBe(true);
  });

  it('is the request’s budget under withReadBudget', () => {
    const budget = withReadBudget(10, () => readBudget());
    expect(budget.limit).toBe(10);
    expect(readBudget().limit).toBe(Number.MAX_SAFE_INTEGER);
  });
});
