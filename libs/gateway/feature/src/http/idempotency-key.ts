import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ServiceError } from '@pay/contracts';
import { IDEMPOTENCY_KEY_LENGTH_MAX } from '@pay/kernel';
import { IDEMPOTENT_CREATE } from '../openapi/describe';

/** The header of a create's idempotency key (contract section 3), as Node lower-cases it. */
export const IDEMPOTENCY_KEY_HEADER = 'idempotency-key';

/** The Idempotency-Key where a create requires one (POST /v1/payments). */
export const requireIdempotencyKey = (key: string | readonly string[] | undefined): string => {
  if (key === undefined || key === '') throw new ServiceError('invalid_request', 'the Idempotency-Key header is required on this request', 'Idempotency-Key');
  return checkIdempotencyKey(key)!;
};

/** The Idempotency-Key where a create honours one when sent. */
export const checkIdempotencyKey = (key: string | readonly string[] | undefined): string | undefined => {
  if (typeof key === 'object') throw new ServiceError('invalid_request', 'send the Idempotency-Key header once', 'Idempotency-Key');
  if (key !== undefined && (key.length === 0 || key.length > IDEMPOTENCY_KEY_LENGTH_MAX)) {
    throw new ServiceError('invalid_request', `Idempotency-Key must be 1 to ${IDEMPOTENCY_KEY_LENGTH_MAX} characters`, 'Idempotency-Key');
  }
  return key;
};

/**
 * What an idempotent create reads of its request: the JSON body (hashed with the key), the raw
 * Idempotency-Key header (checked by the handler, after the body, as the contract orders it) and the
 * reply (a replay sets its status and Idempotent-Replayed on it).
 */
export interface CreateRequest {
  body: unknown;
  /** Every value when the header came more than once (Node would join them with a comma). */
  idempotencyKey: string | readonly string[] | undefined;
  reply: FastifyReply;
}

const creationRequest = createParamDecorator((_data: unknown, context: ExecutionContext): CreateRequest => {
  const http = context.switchToHttp();
  const request = http.getRequest<FastifyRequest>();
  return { body: request.body, idempotencyKey: idempotencyKeyOf(request), reply: http.getResponse<FastifyReply>() };
});

/** The header's value, or each of its values when it was sent more than once. */
const idempotencyKeyOf = (request: FastifyRequest): string | readonly string[] | undefined => {
  const raw = request.raw.rawHeaders;
  const values: string[] = [];
  for (let i = 0; i < raw.length; i += 2) if (raw[i]!.toLowerCase() === IDEMPOTENCY_KEY_HEADER) values.push(raw[i + 1]!);
  return values.length > 1 ? values : (request.headers[IDEMPOTENCY_KEY_HEADER] as string | undefined);
};

/** The create's body and Idempotency-Key; it also marks the route as an idempotent create in the API description. */
export const Creation = (): ParameterDecorator => (target, key, index) => {
  creationRequest()(target, key, index);
  if (key !== undefined) Reflect.defineMetadata(IDEMPOTENT_CREATE, true, (target as Record<string | symbol, object>)[key]!);
};
