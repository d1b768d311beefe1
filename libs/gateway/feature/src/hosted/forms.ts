import { timingSafeEqual } from 'node:crypto';
import type { FastifyReply } from 'fastify';
import { ServiceError } from '@pay/contracts';
import type { MessageKey, MessageParams } from '@pay/hosted-ui';

/** A hosted form's body (application/x-www-form-urlencoded), or undefined for anything else. */
export const formOf = (body: unknown): URLSearchParams | undefined => (body instanceof URLSearchParams ? body : undefined);

/** Constant-time comparison of a form's token with the expected one (byte lengths: timingSafeEqual throws on unequal ones). */
export const sameToken = (given: string | null | undefined, expected: string | undefined): boolean => {
  if (typeof given !== 'string' || typeof expected !== 'string' || given.length === 0) return false;
  const [a, b] = [Buffer.from(given), Buffer.from(expected)];
  return a.length === b.length && timingSafeEqual(a, b);
};

/** After a form post: see the result with a GET (so a reload does not post again). */
export const redirect = (reply: FastifyReply, location: string): void => {
  void reply.status(303).header('Location', location).header('Cache-Control', 'no-store').send();
};

/** A 303 from a GET handler whose return value is the body. */
export const seeOther = (reply: FastifyReply, location: string): string => {
  void reply.status(303).header('Location', location).header('Cache-Control', 'no-store');
  return '';
};

export const notFoundAsUndefined = async <T>(read: () => Promise<T>): Promise<T | undefined> => {
  try {
    return await read();
  } catch (error) {
    if (error instanceof ServiceError && error.code === 'resource_not_found') return undefined;
    throw error;
  }
};

/** A message shown above a page's form after a refused post (`?error=code`). */
export interface ErrorMessage {
  key: MessageKey;
  params?: MessageParams;
  /** The refusal's code (`currency_mismatch`), shown to machines as the message's `data-code`. */
  code?: string;
}

/** The message of a page's `?error=` code; unknown codes (anyone can type a URL) show nothing. */
export const errorMessage = (messages: Readonly<Record<string, MessageKey>>, code: unknown, params?: MessageParams): ErrorMessage | null =>
  typeof code === 'string' && Object.hasOwn(messages, code) ? { key: messages[code]!, code, ...(params ? { params } : {}) } : null;

/** The `?error=` code of a refused command: the ServiceError's code when the page has a message for it. */
export const refusalCode = (error: unknown, messages: Readonly<Record<string, MessageKey>>): string =>
  error instanceof ServiceError && Object.hasOwn(messages, error.code) ? error.code : 'failed';
