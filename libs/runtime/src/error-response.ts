import { HttpException, Logger } from '@nestjs/common';
import { ERROR_STATUS, ServiceError, type ErrorBody } from '@pay/contracts';
import { isOutage } from '@pay/kernel';

export interface ErrorResponse {
  status: number;
  body: { error: ErrorBody };
}

const logger = new Logger('http');

/** Every failure as the contract's error shape; a message never carries a stack trace. */
export function toErrorResponse(error: unknown): ErrorResponse {
  if (error instanceof ServiceError) {
    return { status: error.httpStatus ?? ERROR_STATUS[error.code], body: { error: error.toBody() } };
  }
  const fastifyCode = (error as { code?: unknown }).code;
  if (fastifyCode === 'FST_ERR_CTP_BODY_TOO_LARGE') {
    return respond(413, 'invalid_request', 'the request body is larger than 1 MB (1,048,576 bytes)');
  }
  // The message broke off while its body was read (the client went away, or sent what Node's parser refused): a
  // client's failure, not the service's; the answer rarely reaches anyone. Node names that `aborted`; a socket
  // reset elsewhere (PostgreSQL's connection, `read ECONNRESET`) is an outage, below.
  if (fastifyCode === 'ECONNRESET' && (error as { message?: unknown }).message === 'aborted') {
    return respond(400, 'invalid_request', 'the request was aborted before its body was complete');
  }
  if (fastifyCode === 'FST_ERR_CTP_INVALID_MEDIA_TYPE' || fastifyCode === 'FST_ERR_CTP_INVALID_CONTENT_LENGTH') {
    return respond(400, 'invalid_request', 'the request body must be JSON, sent with Content-Type: application/json');
  }
  if (isOutage(error)) {
    logger.warn(`database unavailable: ${error instanceof Error ? error.message : String(error)}`);
    return respond(503, 'service_unavailable', 'the service cannot reach its database right now; retry shortly');
  }
  if (error instanceof HttpException) {
    const status = error.getStatus();
    if (status === 404) return respond(404, 'resource_not_found', 'no such route');
    if (status === 415) return respond(400, 'invalid_request', 'the request body must be JSON, sent with Content-Type: application/json');
    if (status === 413) return respond(413, 'invalid_request', 'the request body is larger than 1 MB (1,048,576 bytes)');
    if (status < 500) return respond(status === 405 ? 404 : 400, status === 405 ? 'resource_not_found' : 'invalid_request', error.message);
  }
  logger.error(error instanceof Error ? (error.stack ?? error.message) : String(error));
  return respond(500, 'internal_error', 'an internal error occurred; it has been logged');
}

const respond = (status: number, code: ErrorBody['code'], message: string): ErrorResponse => ({ status, body: { error: { code, message } } });
