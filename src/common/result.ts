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

/** The longest message text sent: messages echo what the client sent (ids, paths), which may be megabytes. */
export const MAX_MESSAGE_LENGTH = 500;
/** The most messages one Result carries. */
export const MAX_MESSAGES = 50;

/** `text` cut to `MAX_MESSAGE_LENGTH` characters, saying how much was left out. */
export function clipText(text: string): string {
  if (text.length <= MAX_MESSAGE_LENGTH) return text;
  return `${text.slice(0, MAX_MESSAGE_LENGTH)}… (${text.length - MAX_MESSAGE_LENGTH} more characters)`;
}

export function resultOf(status: number, texts: string[], correlationId?: string): Result {
  const timestamp = new Date().toISOString();
  const messageType: MessageType = status >= 500 ? 'Exception' : 'Error';
  return {
    messages: texts.slice(0, MAX_MESSAGES).map((text) => ({ code: String(status), correlationId, messageType, text: clipText(text), timestamp })),
  };
}
