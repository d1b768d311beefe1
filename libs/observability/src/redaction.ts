/**
 * No secret is ever written to a log. Two layers: the code logs no body, header or credential (the
 * request line names method, route and status only), and what slips through is masked here: fields
 * named like a secret, at the top of a logged object or one level down (pino's `redact`), and text
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

/** pino `redact` paths: each secret field at the top of a logged object and one level down; request headers two levels down. */
export const REDACTED_PATHS: string[] = [
  ...SECRET_FIELDS.flatMap((field) => [field, `*.${field}`]),
  '*.headers.authorization',
  '*.headers.cookie',
];

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
