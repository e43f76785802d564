import fs from 'node:fs';
import path from 'node:path';
import { corpusDir, filesUnder } from './testdata';

/** The aas-core3.0-testgen corpus: JSON, contained in environments. */
const CORPUS = path.join(corpusDir(), 'Json/ContainedInEnvironment');

type Json = Record<string, unknown>;

/** Every environment of one half of the corpus, with its path relative to the corpus root. */
function readEnvironments(kind: 'Expected' | 'Unexpected'): { file: string; env: Json }[] {
  return filesUnder(path.join(CORPUS, kind), ['.json']).map((file) => ({
    file: path.relative(CORPUS, file),
    env: JSON.parse(fs.readFileSync(file, 'utf8')),
  }));
}

/** Every item of the environment list `key` in the Expected environments: each valid, as its environment is. */
export function expectedItems(key: string): { file: string; item: Json }[] {
  return readEnvironments('Expected').flatMap(({ file, env }) => {
    const list = env[key];
    return Array.isArray(list) ? list.map((item: Json) => ({ file, item })) : [];
  });
}

/**
 * The Unexpected environments whose only content is exactly one item of the list `key`: the violation must be
 * in that item, as there is nowhere else for it to be.
 */
export function unexpectedOnlyItems(key: string): { file: string; item: Json }[] {
  return readEnvironments('Unexpected').flatMap(({ file, env }) => {
    const list = env[key];
    const onlyOne = Object.keys(env).length === 1 && Array.isArray(list) && list.length === 1;
    return onlyOne ? [{ file, item: list[0] as Json }] : [];
  });
}

/** Number of cases per category: `<Class>` for Expected, `<kind>/<violation>` for Unexpected. */
export function categories(cases: { file: string }[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const { file } of cases) {
    const [kind, ...folders] = file.split(path.sep);
    const key = folders.slice(0, kind === 'Expected' ? 1 : 2).join('/');
    counts[key] = (counts[key] ?? 0) + 1;
  }
  return counts;
}

export const send = (method: string, url: string, body?: unknown) =>
  fetch(url, {
    method,
    ...(body === undefined ? {} : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
  });

/** The parsed JSON body, or the raw text when it is not JSON (which is itself a finding). */
export async function bodyOf(res: Response): Promise<unknown> {
  const text = await res.text();
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

export const brief = (value: unknown) => JSON.stringify(value)?.slice(0, 300);

/** Why `body` of `res` is not an AAS Result object with `status`, or undefined when it is one. */
export function notAResult(res: Response, body: unknown, status: number): string | undefined {
  const messages = (body as { messages?: unknown })?.messages;
  if (!Array.isArray(messages) || messages.length === 0) return `no Result messages in ${brief(body)}`;
  const wellFormed = messages.every(
    (m) =>
      m?.code === String(status) &&
      m.messageType === 'Error' &&
      typeof m.text === 'string' &&
      m.text.length > 0 &&
      typeof m.timestamp === 'string' &&
      m.correlationId === res.headers.get('x-request-id'),
  );
  return wellFormed ? undefined : `malformed Result ${brief(body)}`;
}

/**
 * Why a GET of `id` after a rejected POST is not the answer for an absent identifiable, or undefined when it is:
 * 404, or 400 for an id longer than an AAS Identifier may be (2,048 characters since V3.1), which can name nothing.
 */
export function absentAnswer(res: Response, body: unknown, id: string): string | undefined {
  if (res.status === 404) return notAResult(res, body, 404);
  if (res.status === 400 && id.length > 2048) return notAResult(res, body, 400);
  return `${res.status} ${brief(body)}`;
}
