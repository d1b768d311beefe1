import {
  applyDecorators,
  Catch,
  createParamDecorator,
  Injectable,
  Logger,
  SetMetadata,
  UseFilters,
  UseGuards,
  type ArgumentsHost,
  type CanActivate,
  type ExceptionFilter,
  type ExecutionContext,
} from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ServiceError } from '@pay/contracts';
import { formOf, sameToken } from '../hosted/forms';
import { attachSession, CONSOLE_PATH, ConsoleSessionStore, sessionOf, type ConsoleRoleName, type ConsoleSession } from './console-sessions';
import { ConsolePages } from './console-pages';

const CONSOLE_ROLES = 'console:roles';

/** Why the console refuses a request; rendered as a page by ConsoleErrorPages. */
export class ConsoleRefusal extends Error {
  constructor(readonly reason: 'sign_in' | 'forbidden' | 'form_expired') {
    super(reason);
  }
}

/**
 * A console route (a controller or a handler) and the roles that may call it: `@ConsoleRole('admin')`
 * for an action, `@ConsoleRole('admin', 'finance')` for a read. The guard wants a live session of one
 * of these roles and, on every request that is not a GET, the session's CSRF token in the form
 * (`csrf` field); its refusals and every other error are pages, not JSON.
 */
export const ConsoleRole = (...roles: [ConsoleRoleName, ...ConsoleRoleName[]]) =>
  applyDecorators(SetMetadata(CONSOLE_ROLES, roles), UseGuards(ConsoleGuard), UseFilters(ConsoleErrorPages));

/** The handler's session (`@Session() session: ConsoleSession`), set by the guard. */
export const Session = createParamDecorator((_data: unknown, context: ExecutionContext): ConsoleSession => sessionOf(context.switchToHttp().getRequest<FastifyRequest>())!);

@Injectable()
export class ConsoleGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly sessions: ConsoleSessionStore,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<FastifyRequest>();
    const roles = this.reflector.getAllAndOverride<ConsoleRoleName[] | undefined>(CONSOLE_ROLES, [context.getHandler(), context.getClass()]);
    // A route without a declaration is refused: forgetting the decorator never opens a page.
    if (!roles) throw new ConsoleRefusal('forbidden');
    const session = await this.sessions.current(request);
    if (!session) throw new ConsoleRefusal('sign_in');
    attachSession(request, session);
    if (request.method !== 'GET' && request.method !== 'HEAD' && !sameToken(formOf(request.body)?.get('csrf'), session.csrfToken)) throw new ConsoleRefusal('form_expired');
    if (!roles.includes(session.role)) throw new ConsoleRefusal('forbidden');
    return true;
  }
}

/**
 * Every error of a console route as a console page: a GET without a session goes to the sign-in
 * (and comes back after it); a form without a session or without its token, a role that may not, an
 * unknown object, a bad query and a failure each get a page of their own.
 */
@Catch()
@Injectable()
export class ConsoleErrorPages implements ExceptionFilter {
  private readonly logger = new Logger('console');

  constructor(private readonly pages: ConsolePages) {}

  catch(error: unknown, host: ArgumentsHost): void {
    const request = host.switchToHttp().getRequest<FastifyRequest>();
    const reply = host.switchToHttp().getResponse<FastifyReply>();
    void reply.send(this.page(error, request, reply));
  }

  private page(error: unknown, request: FastifyRequest, reply: FastifyReply): string {
    if (error instanceof ConsoleRefusal) {
      if (error.reason === 'sign_in') {
        if (request.method === 'GET') {
          void reply.status(303).header('Location', signInPath(request.url)).header('Cache-Control', 'no-store');
          return '';
        }
        return this.pages.message(request, reply, 403, { heading: 'console.sign_in_first', text: 'console.sign_in_first_text', link: { href: signInPath(request.url), label: 'action.sign_in' } });
      }
      if (error.reason === 'form_expired') {
        return this.pages.message(request, reply, 403, { heading: 'page.form_expired', text: 'console.form_expired_text', link: { href: refererPath(request), label: 'layout.back' } });
      }
      return this.pages.message(request, reply, 403, { heading: 'console.forbidden', text: 'console.forbidden_text', link: { href: `${CONSOLE_PATH}/search`, label: 'layout.back' } });
    }
    if (error instanceof ServiceError && error.code === 'resource_not_found') {
      return this.pages.message(request, reply, 404, { heading: 'console.not_found', text: 'console.not_found_text', link: { href: `${CONSOLE_PATH}/search`, label: 'console.nav.search' } });
    }
    if (error instanceof ServiceError && error.code === 'invalid_request') {
      return this.pages.message(request, reply, 400, { heading: 'console.invalid', text: 'console.invalid_text', link: { href: `${CONSOLE_PATH}/search`, label: 'console.nav.search' } });
    }
    this.logger.error(`console page failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    return this.pages.message(request, reply, 500, { heading: 'console.failed', text: 'console.failed_text', link: { href: `${CONSOLE_PATH}/search`, label: 'console.nav.search' } });
  }
}

/** The sign-in page, coming back to `url` after it when that is a console page. */
export const signInPath = (url: string): string => `${CONSOLE_PATH}/sign-in${isConsolePage(url) ? `?next=${encodeURIComponent(url)}` : ''}`;

/**
 * A path of ours to go back to after sign-in: under /console, never another origin (`//evil`, `/\evil`).
 * Its query is visible ASCII only (no control character, space, backslash or non-ASCII): it goes into
 * a Location header as it is, where a CR or LF would be a header of its own.
 */
export const isConsolePage = (url: string): boolean =>
  /^\/console(\/[A-Za-z0-9_\-./]*)?(\?[\x21-\x5b\x5d-\x7e]*)?$/.test(url) && !url.includes('//') && !url.startsWith(`${CONSOLE_PATH}/sign-`);

/** Where a refused form came from, when it is a console page; else the search. */
const refererPath = (request: FastifyRequest): string => {
  try {
    const referer = new URL(String(request.headers.referer ?? ''));
    const path = `${referer.pathname}${referer.search}`;
    return isConsolePage(path) ? path : `${CONSOLE_PATH}/search`;
  } catch {
    return `${CONSOLE_PATH}/search`;
  }
};
