/**
 * No secret is ever written to a log. Two layers: the code logs no body, header or credential (the
 * request line names method, route and status only), and what slips through is masked here: fields
 * named like a secret, at the top of a logged object or one level down (`maskSecretFields`), and text
 * shaped like one of our secrets in messages and error stacks. PINs and handover codes are bare digits
 * with no recognisable shape: only the first layer keeps them out, which is why log lines carry no body.
 */

export const REDACTED = '[redacted]';

const SECRET_FIELDS = [
  'authorization',
  'cookie',
  'pin',
  'password',
  'secret',
  'secrets',
  'previous_secret',
  'api_key',
  'apiKey',
  'adminApiKey',
  'admin_api_key',
  'handover_code',
  'token',
  'databaseUrl',
  'database_url',
] as const;

const SECRET_FIELD_NAMES: ReadonlySet<string> = new Set(SECRET_FIELDS);
const SECRET_HEADERS: ReadonlySet<string> = new Set(['authorization', 'cookie']);

/**
 * A logged object with each field named like a secret masked, at its top and one level down, and
 * request headers (`<field>.headers.authorization`, `.cookie`). One walk over the keys: pino's own
 * `redact` with wildcard paths ran every path over every value of every line.
 */
export const maskSecretFields = (fields: Record<string, unknown>): Record<string, unknown> =>
  withFields(fields, (key, value) => (SECRET_FIELD_NAMES.has(key) ? REDACTED : isObjectWithFields(value) ? withFields(value, maskOneLevelDown) : value));

const maskOneLevelDown = (key: string, value: unknown): unknown =>
  SECRET_FIELD_NAMES.has(key) ? REDACTED : key === 'headers' && isObjectWithFields(value) ? withFields(value, maskHeader) : value;

const maskHeader = (name: string, value: unknown): unknown => (SECRET_HEADERS.has(name) ? REDACTED : value);

/**
 * `object` with each field's value replaced by `replacement(key, value)`: copied only where one changes
 * (the caller's object is never changed; the copy keeps its prototype), else `object` itself.
 */
function withFields(object: Record<string, unknown>, replacement: (key: string, value: unknown) => unknown): Record<string, unknown> {
  let copy: Record<string, unknown> | undefined;
  for (const key of Object.keys(object)) {
    const value = object[key];
    const replaced = replacement(key, value);
    if (replaced !== value) replace((copy ??= copyOf(object)), key, replaced);
  }
  return copy ?? object;
}

/** A copy with the same prototype and own properties (an error keeps its message, stack and type), each redefinable (a frozen object's too). */
const copyOf = (object: Record<string, unknown>): Record<string, unknown> => {
  const properties = Object.getOwnPropertyDescriptors(object);
  for (const property of Object.values(properties)) property.configurable = true;
  return Object.create(Object.getPrototypeOf(object) as object | null, properties) as Record<string, unknown>;
};

/** Sets a field whatever it was (a read-only or accessor property included). */
const replace = (object: Record<string, unknown>, key: string, value: unknown): void => {
  Object.defineProperty(object, key, { value, enumerable: true, writable: true, configurable: true });
};

/**
 * An object whose fields are looked at: a request or an error as much as an object literal (what slips
 * through is as likely one of those); not an array or a buffer, whose every element would be a key.
 */
const isObjectWithFields = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value) && !ArrayBuffer.isView(value);

/**
 * Our secrets' shapes: integrator (`sk_`), finance (`fk_`) and admin (`admin_`) keys, webhook secrets
 * (`whsec_`), bearer or basic credentials, and the password of any URL (`postgres://user:password@…`).
 */
const SECRET_SHAPES: ReadonlyArray<readonly [RegExp, string]> = [
  [/\b(sk|fk|admin)_[A-Za-z0-9]{16,}/g, `$1_${REDACTED}`],
  [/\bwhsec_[A-Za-z0-9+/=]*/g, `whsec_${REDACTED}`],
  [/\b(Bearer|Basic)\s+[^\s"',;]+/gi, `$1 ${REDACTED}`],
  [/\b([a-z][a-z0-9+.-]*:\/\/[^:/?#@\s]*):[^@/?#\s]*@/gi, `$1:${REDACTED}@`],
];
/** One cheap test first: nearly every message has none of these, and is returned untouched. */
const MAY_HOLD_SECRET = /sk_|fk_|admin_|whsec_|bearer|basic|:\/\/[^\s]*@/i;

/** `text` with every secret-shaped part masked. */
export function scrubSecrets(text: string): string {
  if (!MAY_HOLD_SECRET.test(text)) return text;
  let scrubbed = text;
  for (const [shape, replacement] of SECRET_SHAPES) scrubbed = scrubbed.replace(shape, replacement);
  return scrubbed;
}
