/** The AAS API's Result object (Part 2, "Result"), the body of every unsuccessful response. */
export type MessageType = 'Undefined' | 'Info' | 'Warning' | 'Error' | 'Exception';

export interface ResultMessage {
  code: string;
  correlationId?: string;
  messageType: MessageType;
  text: string;
  timestamp: string;
}

export interface Result {
  messages: ResultMessage[];
}

export function resultOf(status: number, texts: string[], correlationId?: string): Result {
  const timestamp = new Date().toISOString();
  const messageType: MessageType = status >= 500 ? 'Exception' : 'Error';
  return {
    messages: texts.map((text) => ({ code: String(status), correlationId, messageType, text, timestamp })),
  };
}
