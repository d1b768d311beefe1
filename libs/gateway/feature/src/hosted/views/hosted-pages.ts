import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Inject, Injectable } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { chooseLanguage, iconSvg, isLanguage, pageContext, stylesheet, Views, type Language, type MessageKey, type MessageParams } from '@pay/hosted-ui';
import { LANGUAGE_COOKIE_TTL_MS } from '@pay/kernel';
import { GATEWAY_CONFIG, type GatewayConfig } from '../../gateway.config';
import { sendPage } from './headers';
import { LANGUAGE_COOKIE, readCookie, setCookie } from '../stores/sessions';
import type { GatewayViews } from './view-models';

/** The gateway's templates and the agents' scanner script, at the library's root (copied to dist/ by the build). */
const VIEWS_DIR = join(__dirname, '..', '..', '..', 'views');
export const SCAN_SCRIPT_PATH = '/hosted/assets/agent-scan.js';
export const FORMS_SCRIPT_PATH = '/hosted/assets/forms.js';

export interface RenderOptions {
  title: [MessageKey, MessageParams?];
  status?: number;
  /** Loads the agents' QR scanner (a script of ours, allowed by this response's CSP nonce only). */
  scanner?: boolean;
  /** Loads the forms' pending state (a script of ours, as the scanner); every page but a message has forms. */
  forms?: boolean;
  /** The page the language switch links to; the current one when absent (a page answering a POST names its GET page). */
  switchPath?: string;
}

/** Renders the hosted pages: the request's language, the brand, the templates, the headers. */
@Injectable()
export class HostedPages {
  private readonly views = new Views<GatewayViews>(VIEWS_DIR);
  /** Built once: the brand is read at start. */
  readonly css: string;
  readonly icon: string;
  readonly scanScript = readFileSync(join(VIEWS_DIR, 'agent-scan.js'), 'utf8');
  readonly formsScript = readFileSync(join(VIEWS_DIR, 'forms.js'), 'utf8');

  constructor(@Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig) {
    this.css = stylesheet(config.brand);
    this.icon = iconSvg(config.brand);
  }

  get brandName(): string {
    return this.config.brand.name;
  }

  /** The request's language; a choice made with the switch (`?lang=`) is remembered in a cookie. */
  language(request: FastifyRequest, reply: FastifyReply): Language {
    const query = (request.query as Record<string, unknown> | undefined)?.['lang'];
    if (isLanguage(query)) setCookie(reply, LANGUAGE_COOKIE, query, LANGUAGE_COOKIE_TTL_MS);
    return chooseLanguage({ query, cookie: readCookie(request, LANGUAGE_COOKIE), acceptLanguage: request.headers['accept-language'] });
  }

  /** The page `view` in the request's language, with the hosted pages' headers set: return it from a GET handler. */
  render<View extends keyof GatewayViews & string>(request: FastifyRequest, reply: FastifyReply, view: View, model: GatewayViews[View], options: RenderOptions): string {
    const language = this.language(request, reply);
    const sources = [...(options.forms !== false ? [FORMS_SCRIPT_PATH] : []), ...(options.scanner ? [SCAN_SCRIPT_PATH] : [])];
    const nonce = sources.length > 0 ? randomBytes(18).toString('base64') : undefined;
    const page = pageContext({
      language,
      brandName: this.brandName,
      title: options.title,
      ...(options.switchPath ? { switchPath: options.switchPath } : {}),
      ...(nonce ? { scripts: sources.map((src) => ({ src, nonce })) } : {}),
    });
    return sendPage(reply, this.views.render(view, model, page), { status: options.status, language, scriptNonce: nonce, camera: options.scanner });
  }

  /**
   * A page that only says something (not found, sign in first, form expired). With a way back, its
   * language switch leads there too: it may answer a POST, whose URL has no page to GET.
   */
  message(request: FastifyRequest, reply: FastifyReply, status: number, model: GatewayViews['message']): string {
    return this.render(request, reply, 'message', model, { title: [model.heading], status, forms: false, ...(model.link ? { switchPath: model.link.href } : {}) });
  }

  /** The same, sent at once: for POST handlers, which own the reply. */
  sendMessage(request: FastifyRequest, reply: FastifyReply, status: number, model: GatewayViews['message']): void {
    void reply.send(this.message(request, reply, status, model));
  }

  /** A form post without the right CSRF token; `back`: the form's page, shown again with a fresh token. */
  formExpired(request: FastifyRequest, reply: FastifyReply, back: string): void {
    this.sendMessage(request, reply, 403, { heading: 'page.form_expired', text: 'page.form_expired_text', link: { href: back, label: 'action.back_to_form' } });
  }
}
