import type { FastifyReply, FastifyRequest } from 'fastify';
import { ServiceError } from '@pay/contracts';
import type { MessageKey } from '@pay/hosted-ui';
import { formOf, redirect, refusalCode, sameToken } from './forms';
import type { Session } from './stores/sessions';
import type { HostedPages } from './views/hosted-pages';

export interface PageAction {
  /** The session bound to the page's object, if the person signed in there. */
  session: Session | undefined;
  body: unknown;
  /** The page to go back to (303), with `?error=` on a refusal it has a message for. */
  page: string;
  errors: Readonly<Record<string, MessageKey>>;
  /**
   * Refusals answered with the page itself, with its status, rather than a redirect to `?error=` (the
   * contract's `400 currency_mismatch`): their codes, and the page showing the code's message.
   */
  inPlace?: { codes: readonly string[]; render: (code: string) => Promise<string> };
}

/**
 * A form post of a signed-in person on a payment or approval page: a bound session (else 403), the
 * form's CSRF token (else the form expired), then the command, and back to the page.
 */
export const runPageAction = async (pages: HostedPages, request: FastifyRequest, reply: FastifyReply, action: PageAction, command: (session: Session) => Promise<unknown>) => {
  const { session, page } = action;
  const form = formOf(action.body);
  if (!session) return pages.sendMessage(request, reply, 403, { heading: 'page.sign_in_first', text: 'page.sign_in_first_text', link: { href: page, label: 'action.sign_in' } });
  if (!form || !sameToken(form.get('csrf'), session.csrfToken)) return pages.formExpired(request, reply, page);
  try {
    await command(session);
  } catch (error) {
    // Done already (a second post of a double tap) or closed meanwhile: the page's status says which.
    if (error instanceof ServiceError && error.code === 'invalid_status') return redirect(reply, page);
    if (error instanceof ServiceError && action.inPlace?.codes.includes(error.code)) {
      void reply.send(await action.inPlace.render(error.code));
      return;
    }
    return redirect(reply, `${page}?error=${refusalCode(error, action.errors)}`);
  }
  return redirect(reply, page);
};
