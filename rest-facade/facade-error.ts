/** A failure the facade answers itself (bad path, query or body), before or after running an operation. */
export class FacadeError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly messages: string[] = [message],
  ) {
    super(message);
  }
}

export const badParam = (message: string) => new FacadeError(400, message);
