import { Body, Controller, Get, Post, Query, Req, Res, UseFilters } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { API_KEY_LENGTH_MAX, CONSOLE_SIGN_IN_FAILURES_MAX, CONSOLE_SIGN_IN_LOCK_MS, MINUTE_MS } from '@pay/kernel';
import { AdminAuthenticator } from '../auth/auth';
import { formOf, redirect, sameToken, seeOther } from '../hosted/forms';
import { readCookie } from '../hosted/stores/sessions';
import { SignInLimiter, type LockPolicy } from '../hosted/stores/sign-in-limiter';
import { ConsolePages } from './console-pages';
import { ConsoleErrorPages, ConsoleRole, isConsolePage } from './console-role';
import { CONSOLE_PATH, CONSOLE_SIGN_IN_CSRF_COOKIE, ConsoleSessionStore } from './console-sessions';
import type { Notice } from './console-views';

const HOME = `${CONSOLE_PATH}/search`;

/**
 * Sign-ins are limited per client address (a key names no login to lock): its own logins in the
 * hosted pages' limiter, `console:<address>`, five failures locking the address for 15 minutes, again
 * after five more. Every attempt is counted before its key is checked, so parallel guesses get no more tries.
 */
const CONSOLE_SIGN_IN_POLICY: LockPolicy = { locksMs: [CONSOLE_SIGN_IN_LOCK_MS], untilReset: false, failuresMax: CONSOLE_SIGN_IN_FAILURES_MAX };
const consoleLogin = (address: string): string => `console:${address}`;
/** As the sign-in page says it. */
const CONSOLE_LOCK_MINUTES = CONSOLE_SIGN_IN_LOCK_MS / MINUTE_MS;

/** The sign-in page's `?error=` codes. */
const SIGN_IN_ERRORS = { sign_in: 'console.error.sign_in', locked: 'console.error.locked', expired: 'console.error.expired' } as const;

/**
 * The console's door: sign-in with the admin key or a finance key (limited per client address), a
 * session cookie of that role, and sign-out.
 */
@Controller('console')
@UseFilters(ConsoleErrorPages)
export class ConsoleSignInController {
  constructor(
    private readonly pages: ConsolePages,
    private readonly sessions: ConsoleSessionStore,
    private readonly limiter: SignInLimiter,
    private readonly authenticator: AdminAuthenticator,
  ) {}

  @Get()
  home(@Res({ passthrough: true }) reply: FastifyReply): string {
    return seeOther(reply, HOME);
  }

  @Get('sign-in')
  signInPage(@Query('next') next: unknown, @Query('error') error: unknown, @Req() request: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply): string {
    const code = typeof error === 'string' && Object.hasOwn(SIGN_IN_ERRORS, error) ? (error as keyof typeof SIGN_IN_ERRORS) : undefined;
    const notice: Notice | null = code ? { kind: 'error', key: SIGN_IN_ERRORS[code], params: { minutes: CONSOLE_LOCK_MINUTES } } : null;
    return this.pages.render(
      request,
      reply,
      'console-sign-in',
      { csrf: this.sessions.signInToken(request, reply), next: typeof next === 'string' && isConsolePage(next) ? next : '', notice },
      { title: ['console.sign_in_title'], status: code ? 401 : 200 },
    );
  }

  @Post('sign-in')
  async signIn(@Body() body: unknown, @Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const form = formOf(body);
    if (!form || !sameToken(form.get('csrf'), readCookie(request, CONSOLE_SIGN_IN_CSRF_COOKIE))) return redirect(reply, `${CONSOLE_PATH}/sign-in?error=expired`);
    const next = form.get('next') ?? '';
    const back = (code: string) => `${CONSOLE_PATH}/sign-in?error=${code}${next && isConsolePage(next) ? `&next=${encodeURIComponent(next)}` : ''}`;
    const key = (form.get('key') ?? '').trim();
    const login = consoleLogin(request.ip);
    if (!(await this.limiter.attempt(login, CONSOLE_SIGN_IN_POLICY))) return redirect(reply, back('locked'));
    const credential = key && key.length <= API_KEY_LENGTH_MAX ? await this.authenticator.consoleCredentialOf(key) : undefined;
    if (credential === undefined) {
      // A key checked and wrong says so, even the one that locks: the lock refuses the attempts after it.
      await this.limiter.failed(login, CONSOLE_SIGN_IN_POLICY);
      return redirect(reply, back('sign_in'));
    }
    await this.limiter.succeeded(login);
    await this.sessions.open(request, reply, credential);
    return redirect(reply, next && isConsolePage(next) ? next : HOME);
  }

  /** Both roles sign out with a form carrying the session's token (another site cannot sign anyone out). */
  @Post('sign-out')
  @ConsoleRole('admin', 'finance')
  async signOut(@Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    await this.sessions.close(request, reply);
    return redirect(reply, `${CONSOLE_PATH}/sign-in`);
  }
}
