import type net from 'node:net';
import type { SessionQueue } from './session-queue';

/** Request codes of the untyped messages a client may open with (PostgreSQL protocol 3.0). */
const PROTOCOL_3 = 196608;
const SSL_REQUEST = 80877103;
const GSSENC_REQUEST = 80877104;
const CANCEL_REQUEST = 80877102;
const TERMINATE = 0x58; // 'X'

/** The leading complete messages of `buffer` (typed: 1 byte, then an int32 length that counts itself). */
export function completeMessages(buffer: Buffer): { messages: Buffer; terminate: boolean; rest: Buffer } {
  let end = 0;
  while (end + 5 <= buffer.length) {
    const length = buffer.readInt32BE(end + 1);
    if (length < 4) throw new Error(`malformed message: length ${length}`);
    if (end + 1 + length > buffer.length) break;
    if (buffer[end] === TERMINATE) return { messages: buffer.subarray(0, end), terminate: true, rest: Buffer.alloc(0) };
    end += 1 + length;
  }
  return { messages: buffer.subarray(0, end), terminate: false, rest: buffer.subarray(end) };
}

/**
 * One client connection of the embedded database: speaks the start of the protocol that PGlite does not (SSL and
 * GSSAPI requests are declined, cancel requests ignored, Terminate closes), and hands PGlite everything complete
 * that a read brought at once, as one call through the SessionQueue. A client sends a parameterized query as
 * five messages (Parse, Bind, Describe, Execute, Sync) in one write; pglite-socket's handler made five calls into
 * PGlite of them, each with its own turn of the queue and its own socket write.
 */
export class EmbeddedConnection {
  private buffer: Buffer = Buffer.alloc(0);
  private started = false;
  /** Reads are handled one after the other, in order. */
  private chain: Promise<void> = Promise.resolve();
  private closed = false;

  constructor(
    private readonly id: number,
    private readonly socket: net.Socket,
    private readonly queue: SessionQueue,
    private readonly onClose: () => void,
  ) {
    socket.on('data', (data: Buffer) => {
      this.chain = this.chain.then(() => this.receive(data)).catch(() => this.close());
    });
    socket.on('error', () => this.close());
    socket.on('close', () => this.close());
  }

  /** Ends the connection, giving back the session (and rolling back what it left open) if it held it. */
  close(): Promise<void> {
    if (this.closed) return Promise.resolve();
    this.closed = true;
    this.socket.destroy();
    this.queue.clearQueueForHandler(this.id);
    this.onClose();
    return this.queue.clearTransactionIfNeeded(this.id);
  }

  private async receive(data: Buffer): Promise<void> {
    if (this.closed) return;
    this.buffer = this.buffer.length ? Buffer.concat([this.buffer, data]) : data;
    while (!this.started && this.buffer.length >= 8) {
      const length = this.buffer.readInt32BE(0);
      if (length < 8 || length > 10_000) throw new Error(`malformed start-up message: length ${length}`);
      if (this.buffer.length < length) return;
      const code = this.buffer.readInt32BE(4);
      const message = this.buffer.subarray(0, length);
      this.buffer = this.buffer.subarray(length);
      if (code === SSL_REQUEST || code === GSSENC_REQUEST) {
        this.socket.write('N');
      } else if (code === PROTOCOL_3) {
        this.started = true;
        await this.send(message);
      } else {
        // A cancel request (not supported: PGlite runs one statement at a time to its end) or an unknown one.
        if (code !== CANCEL_REQUEST) throw new Error(`unknown start-up request ${code}`);
        await this.close();
        return;
      }
    }
    if (!this.started) return;
    const { messages, terminate, rest } = completeMessages(this.buffer);
    this.buffer = rest;
    if (messages.length) await this.send(messages);
    if (terminate) await this.close();
  }

  private async send(messages: Buffer): Promise<void> {
    await this.queue.enqueue(this.id, new Uint8Array(messages), (output) => {
      if (!this.closed && this.socket.writable) this.socket.write(output);
    });
  }
}
