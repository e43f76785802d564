/** The part of autocannon's programmatic API (v9) the benchmark uses; the package ships no types. */
declare module 'autocannon' {
  import { EventEmitter } from 'node:events';

  namespace autocannon {
    interface Request {
      method?: string;
      path?: string;
      headers?: Record<string, string>;
      body?: string | Buffer;
      /** Called before each request is sent; returns the request to send. */
      setupRequest?(request: Request): Request;
    }

    interface Options {
      url: string;
      connections?: number;
      /** Seconds. */
      duration?: number;
      /** Total requests to send, instead of a duration. */
      amount?: number;
      /** With a duration: stop once this many requests were sent, if that comes first. */
      maxOverallRequests?: number;
      /** Seconds before a request counts as timed out (default 10). */
      timeout?: number;
      method?: string;
      headers?: Record<string, string>;
      body?: string;
      requests?: Request[];
    }

    interface Histogram {
      average: number;
      mean: number;
      total: number;
      p50: number;
      p99: number;
    }

    interface Result {
      duration: number;
      errors: number;
      timeouts: number;
      non2xx: number;
      statusCodeStats: Record<string, { count: number }>;
      requests: Histogram;
      latency: Histogram;
    }

    interface Instance extends EventEmitter, PromiseLike<Result> {
      /** Emitted per response; `responseTime` in milliseconds, sub-millisecond precision. */
      on(event: 'response', listener: (client: unknown, statusCode: number, bytes: number, responseTime: number) => void): this;
      on(event: string, listener: (...args: unknown[]) => void): this;
    }
  }

  function autocannon(options: autocannon.Options): autocannon.Instance;
  export = autocannon;
}
