import { Catch, Injectable, Logger, type ArgumentsHost, type ExceptionFilter } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ERROR_STATUS, ServiceError } from '@pay/contracts';
import { HostedPages } from './hosted-pages';

/** Seconds a customer is asked to wait before trying again a page that could not be shown. */
const RETRY_AFTER_SECONDS = 5;

/**
 * Every error of a hosted page's route as a page of its own, in the person's language: the customer
 * and the agents never see the API's JSON. An id that cannot exist (`pay_….`, pasted with a full stop)
 * or an unknown one is "Not found" (404); a query that does not decode (Latin-1 marketing tags) is a
 * 400 page linking to the page without it; anything else, a page saying to try again.
 */
@Catch()
@Injectable()
export class HostedErrorPages implements ExceptionFilter {
  private readonly logger = new Logger('hosted');

  constructor(private readonly pages: HostedPages) {}

  catch(error: unknown, host: ArgumentsHost): void {
    const request = host.switchToHttp().getRequest<FastifyRequest>();
    const reply = host.switchToHttp().getResponse<FastifyReply>();
    void reply.send(this.page(error, request, reply));
  }

  private page(error: unknown, request: FastifyRequest, reply: FastifyReply): string {
    const status = error instanceof ServiceError ? (error.httpStatus ?? ERROR_STATUS[error.code]) : 500;
    if (status === 404) return this.pages.message(request, reply, 404, { heading: 'page.not_found', text: 'page.not_found_text' });
    if (status < 500) {
      if (status === 429) void reply.header('Retry-After', String(RETRY_AFTER_SECONDS));
      // A GET's page without its query: the person gets there in one tap (a POST's address has no page).
      const path = request.url.split('?')[0]!;
      const link = request.method === 'GET' && status === 400 ? { href: path, label: 'action.open_page' as const } : undefined;
      return this.pages.message(request, reply, status, { heading: 'page.bad_request', text: 'page.bad_request_text', ...(link ? { link } : {}) });
    }
    if (!(error instanceof ServiceError)) this.logger.error(`hosted page failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    void reply.header('Retry-After', String(RETRY_AFTER_SECONDS));
    return this.pages.message(request, reply, status, { heading: 'page.unavailable', text: 'page.unavailable_text' });
  }
}
