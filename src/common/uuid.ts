const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Whether a value is a UUID in its text form (any case): the ids the server draws for rows of its own. */
export const isUuid = (value: unknown): value is string => typeof value === 'string' && UUID.test(value);
