import { plainToInstance } from 'class-transformer';
import { registerDecorator, useContainer, validateSync, type ValidationError, type ValidationOptions } from 'class-validator';
import { ServiceError, type ErrorCode } from '@pay/contracts';
import { AMOUNT_MAX_MINOR, AMOUNT_MIN_MINOR, isCurrency, isValidAmount } from '@pay/kernel';
import { parseIsoInstant } from '../api/list-query';

/** Maps class-validator failures to the contract's codes; a decorator names its code in `context`. */
export const code = (errorCode: ErrorCode): ValidationOptions => ({ context: { code: errorCode } });

/**
 * class-validator asks its container for each constraint's instance at every check, and its default
 * container finds it by a linear search over every constraint instantiated so far: one class per
 * decorator use across all our DTOs (over two hundred), so a create's body scanned thousands of entries.
 * The same one instance per class, found in a Map.
 */
const constraintInstances = new Map<new () => unknown, unknown>();
useContainer({
  get<T>(constraint: new () => T): T {
    let instance = constraintInstances.get(constraint) as T | undefined;
    if (instance === undefined) constraintInstances.set(constraint, (instance = new constraint()));
    return instance;
  },
});

/** Body shape codes in the order the contract ranks them (section 2, validation order). */
const PRECEDENCE: ErrorCode[] = ['invalid_request', 'invalid_amount', 'unsupported_currency'];

/**
 * Validates a JSON body against a DTO class: the DTO or a ServiceError naming the faulty parameter.
 * A parameter sent as JSON null counts as missing (contract section 2): a required one is refused as
 * missing, an unknown one as unknown, and an optional one is left out of the DTO, since `@IsOptional`
 * lets null through and a handler would otherwise read it as a value.
 */
export function validateBody<T extends object>(dto: new () => T, body: unknown): T {
  refuseInheritedNames(validateObject(body));
  const instance = plainToInstance(dto, body);
  const errors = validateSync(instance, { whitelist: true, forbidNonWhitelisted: true, forbidUnknownValues: true });
  if (errors.length > 0) throw toServiceError(errors);
  for (const [name, value] of Object.entries(instance)) if (value === null) delete (instance as Record<string, unknown>)[name];
  return instance;
}

/** Actions take no parameters: no body, or an empty JSON object. */
export function requireEmptyBody(body: unknown): void {
  if (body === undefined) return;
  const { [0]: unknown } = Object.keys(validateObject(body));
  if (unknown !== undefined) throw new ServiceError('invalid_request', `unknown parameter: ${unknown}`, unknown);
}

const validateObject = (body: unknown): object => {
  if (body === undefined) throw new ServiceError('invalid_request', 'the request body is missing: send a JSON object with Content-Type: application/json');
  if (body instanceof URLSearchParams) throw new ServiceError('invalid_request', 'the request body must be JSON, sent with Content-Type: application/json');
  if (typeof body !== 'object' || body === null || Object.getPrototypeOf(body) !== Object.prototype) {
    throw new ServiceError('invalid_request', 'the request body must be a JSON object');
  }
  return body;
};

/**
 * class-validator's whitelist looks parameter names up in a plain object, where `constructor` or
 * `toString` are found on its prototype: such a name would pass as known. No parameter of ours has one.
 */
const refuseInheritedNames = (body: object): void => {
  const inherited = Object.keys(body).find((name) => name in Object.prototype);
  if (inherited !== undefined) throw new ServiceError('invalid_request', `unknown parameter: ${inherited}`, inherited);
};

export function validateQuery<T extends object>(dto: new () => T, query: unknown): T {
  // Fastify's query objects have no prototype: copy into a plain object.
  return validateBody(dto, { ...((query as object | undefined) ?? {}) });
}

function toServiceError(errors: ValidationError[]): ServiceError {
  const faults = errors.map((error) => ({ param: error.property, code: codeOf(error), message: messageOf(error) }));
  faults.sort((a, b) => PRECEDENCE.indexOf(a.code) - PRECEDENCE.indexOf(b.code));
  const first = faults[0]!;
  return new ServiceError(first.code, first.message, first.param);
}

function codeOf(error: ValidationError): ErrorCode {
  const codes = Object.keys(error.constraints ?? {}).map((name) => (error.contexts?.[name]?.['code'] as ErrorCode | undefined) ?? 'invalid_request');
  return PRECEDENCE.find((candidate) => codes.includes(candidate)) ?? 'invalid_request';
}

/** class-validator's type rules, which name the type a parameter must have. */
const TYPE_RULES = ['isString', 'isInt', 'isNumber', 'isBoolean', 'isArray', 'isObject'];

function messageOf(error: ValidationError): string {
  const constraints = error.constraints ?? {};
  if ('whitelistValidation' in constraints) return `unknown parameter: ${error.property}`;
  if ('isDefined' in constraints) return `${error.property} is required`;
  // A value of the wrong type is told its type, not a rule about the type it should have had (its length).
  const typeRule = TYPE_RULES.find((rule) => rule in constraints);
  if (typeRule !== undefined) return constraints[typeRule]!;
  return Object.values(constraints)[0] ?? `${error.property} is invalid`;
}

const decorator =
  (name: string, check: (value: unknown) => boolean, message: string, errorCode: ErrorCode) =>
  (options: ValidationOptions = {}) =>
  (target: object, propertyName: string) =>
    registerDecorator({
      name,
      target: target.constructor,
      propertyName,
      options: { message, ...code(errorCode), ...options },
      validator: { validate: check },
    });

export const IsAmount = decorator('isAmount', isValidAmount, `$property must be an integer from ${AMOUNT_MIN_MINOR} to ${AMOUNT_MAX_MINOR} (minor units)`, 'invalid_amount');
export const IsSupportedCurrency = decorator('isSupportedCurrency', isCurrency, '$property must be one of DZD, MAD, TND, XOF', 'unsupported_currency');
/**
 * An absolute https URL as given: `https://` (the scheme in any case), then a host, and no control
 * character or whitespace anywhere. The raw string is checked, not only what `new URL()` makes of it:
 * it repairs `https:shop.example`, `https:/shop.example` and `https:///shop.example` into
 * `https://shop.example/` and drops a tab or newline, none of which is the URL the merchant gave.
 */
export const HTTPS_URL_PATTERN = '^[Hh][Tt][Tt][Pp][Ss]://[^/?#\\\\\\s\\x00-\\x1f\\x7f-\\x9f][^\\s\\x00-\\x1f\\x7f-\\x9f]*$';
const HTTPS_URL = new RegExp(HTTPS_URL_PATTERN);

export const IsIsoTime = decorator(
  'isIsoTime',
  (value) => typeof value === 'string' && parseIsoInstant(value) !== undefined,
  '$property must be an ISO 8601 time with a zone that exists, in years 0001 to 9999 UTC, e.g. 2026-11-22T10:00:00.000Z',
  'invalid_request',
);
export const IsHttpsUrl = decorator(
  'isHttpsUrl',
  (value) => {
    if (typeof value !== 'string' || !HTTPS_URL.test(value)) return false;
    try {
      const url = new URL(value);
      return url.protocol === 'https:' && url.hostname !== '';
    } catch {
      return false;
    }
  },
  '$property must be an absolute https:// URL',
  'invalid_request',
);
