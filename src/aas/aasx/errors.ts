/**
 * Every problem with the package a client sent: not a zip, an unsafe entry, a limit exceeded, a missing or
 * malformed OPC part. The message is written for the client (the caller answers 400 with it); nothing in it
 * comes from the server's file system.
 */
export class AasxError extends Error {
  override readonly name = 'AasxError';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

/** A client-facing rendering of a part or entry name: quoted, control characters escaped, length bounded. */
export function quoteName(name: string): string {
  const shown = name.length > 200 ? `${name.slice(0, 200)}…` : name;
  return JSON.stringify(shown);
}
