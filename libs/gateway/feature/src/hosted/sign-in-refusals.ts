import type { FastifyReply, FastifyRequest } from 'fastify';
import type { MessageKey } from '@pay/hosted-ui';
import { SECOND_MS, SIGN_IN_ADDRESS_WINDOW_MS, SIGN_IN_GLOBAL_WINDOW_MS } from '@pay/kernel';
import { redirect } from './forms';
import type { SignInRefusal } from './stores/sign-in-limiter';
import type { HostedPages } from './views/hosted-pages';

/** A PIN sign-in's lock codes (`?error=`) and their messages: the first lock, a longer one, until the PIN is reset. */
export const PIN_LOCK_ERRORS: Readonly<Record<string, MessageKey>> = {
  locked: 'error.locked_pin',
  locked_longer: 'error.locked_pin_longer',
  locked_until_reset: 'error.locked_pin_reset',
};

/** The same for a login and password (approvers, agents). */
export const PASSWORD_LOCK_ERRORS: Readonly<Record<string, MessageKey>> = {
  locked: 'error.locked_password',
  locked_longer: 'error.locked_password_longer',
  locked_until_reset: 'error.locked_password_reset',
};

/**
 * A refused sign-in: past the limit of its client address or of the whole service, a page that says
 * so (`429`, `Retry-After`: the window's length at most); otherwise back to the form (`back`) with the
 * refusal as its `?error=` code, and `query` after it (the attempts left: `&left=2&lock=60`).
 */
export const sendSignInRefusal = (pages: HostedPages, request: FastifyRequest, reply: FastifyReply, refused: SignInRefusal, back: string, query = ''): void => {
  if (refused !== 'address_limited' && refused !== 'paused') return redirect(reply, `${back}?error=${refused}${query}`);
  const address = refused === 'address_limited';
  void reply.header('Retry-After', String((address ? SIGN_IN_ADDRESS_WINDOW_MS : SIGN_IN_GLOBAL_WINDOW_MS) / SECOND_MS));
  pages.sendMessage(request, reply, 429, {
    heading: address ? 'page.sign_in_address_limited' : 'page.sign_in_paused',
    text: address ? 'page.sign_in_address_limited_text' : 'page.sign_in_paused_text',
    link: { href: back, label: 'layout.back' },
  });
};
