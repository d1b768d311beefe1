import { join } from 'node:path';
import { Inject, Injectable } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { chooseLanguage, formatDateTime, formatSignedMoney, isLanguage, LANGUAGE_NAMES, LANGUAGES, pageContext, translator, Views, type Language, type MessageKey, type MessageParams } from '@pay/hosted-ui';
import { LANGUAGE_COOKIE_TTL_MS, type Currency } from '@pay/kernel';
import { GATEWAY_CONFIG, type GatewayConfig } from '../gateway.config';
import { sendPage } from '../hosted/views/headers';
import { readCookie } from '../hosted/stores/sessions';
import { CONSOLE_LANGUAGE_COOKIE, CONSOLE_PATH, sessionOf, setConsoleCookie, type ConsoleRoleName } from './console-sessions';
import { displayDate } from './console-dates';
import { entryKindText, eventText, statusText } from './console-statuses';
import type { ConsoleChrome, ConsoleSection, ConsoleViews, NavEntry } from './console-views';

/** The console's templates (views/console/*.eta, each named `console-…`), beside the hosted pages' shared ones. */
const CONSOLE_VIEWS_DIR = join(__dirname, '..', '..', 'views', 'console');
export const CONSOLE_STYLESHEET_PATH = `${CONSOLE_PATH}/assets/console.css`;

/** The sections of the header's navigation; `roles`: who sees the entry (a page's guard decides who may open it). */
const NAV: readonly (NavEntry & { roles: readonly ConsoleRoleName[] })[] = [
  { section: 'search', href: `${CONSOLE_PATH}/search`, label: 'console.nav.search', roles: ['admin', 'finance'] },
  { section: 'accounts', href: `${CONSOLE_PATH}/accounts`, label: 'console.nav.accounts', roles: ['admin', 'finance'] },
  { section: 'finance', href: `${CONSOLE_PATH}/finance`, label: 'console.nav.finance', roles: ['admin', 'finance'] },
  { section: 'operations', href: `${CONSOLE_PATH}/operations`, label: 'console.nav.operations', roles: ['admin'] },
];

/** The platform's reference zone for times that belong to no currency (a parked event, a session). */
const PLATFORM_CURRENCY: Currency = 'DZD';

type WithChrome = { [View in keyof ConsoleViews]: ConsoleViews[View] & { chrome: ConsoleChrome } };

export interface ConsoleRenderOptions {
  title: [MessageKey, MessageParams?];
  /** The navigation entry marked current. */
  section?: ConsoleSection;
  status?: number;
}

/**
 * Renders the console's pages: the request's language (fr, ar right to left, en), the brand, the
 * header with the role signed in, the navigation and sign-out, and the hosted pages' headers (CSP
 * without inline script or style, never cached, never framed).
 */
@Injectable()
export class ConsolePages {
  private readonly views = new Views<WithChrome>(CONSOLE_VIEWS_DIR);

  constructor(@Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig) {}

  /** The request's language; a choice made with the switch (`?lang=`) is remembered in a cookie under /console. */
  language(request: FastifyRequest, reply: FastifyReply): Language {
    const query = (request.query as Record<string, unknown> | undefined)?.['lang'];
    if (isLanguage(query)) setConsoleCookie(reply, CONSOLE_LANGUAGE_COOKIE, query, LANGUAGE_COOKIE_TTL_MS, !this.config.sandbox);
    return chooseLanguage({ query, cookie: readCookie(request, CONSOLE_LANGUAGE_COOKIE), acceptLanguage: request.headers['accept-language'] });
  }

  /** The page `view` with its chrome; return it from a GET handler (or send it from a POST one). */
  render<View extends keyof ConsoleViews & string>(request: FastifyRequest, reply: FastifyReply, view: View, model: ConsoleViews[View], options: ConsoleRenderOptions): string {
    const language = this.language(request, reply);
    const page = pageContext({ language, brandName: this.config.brand.name, title: options.title });
    // The switch keeps the page's query (a search stays a search), only `lang` changes.
    const url = new URL(request.url, 'http://console.invalid');
    page.languages = LANGUAGES.map((code) => {
      url.searchParams.set('lang', code);
      return { code, name: LANGUAGE_NAMES[code], href: `${url.pathname}${url.search}`, current: code === language };
    });
    const chrome = this.chrome(request, language, options.section);
    const html = this.views.render(view, { ...model, chrome } as WithChrome[View], page);
    return sendPage(reply, html, { status: options.status, language });
  }

  /** A page that only says something (sign in first, forbidden, not found, form expired). */
  message(request: FastifyRequest, reply: FastifyReply, status: number, model: ConsoleViews['console-message']): string {
    return this.render(request, reply, 'console-message', model, { title: [model.heading], status });
  }

  private chrome(request: FastifyRequest, language: Language, section: ConsoleSection | undefined): ConsoleChrome {
    const session = sessionOf(request);
    const t = translator(language);
    return {
      role: session?.role ?? null,
      csrf: session?.csrfToken ?? '',
      admin: session?.role === 'admin',
      nav: session ? NAV.filter((entry) => entry.roles.includes(session.role)).map(({ roles: _roles, ...entry }) => ({ ...entry, current: entry.section === section })) : [],
      stylesheet: CONSOLE_STYLESHEET_PATH,
      money: (minor, currency) => formatSignedMoney(minor, currency, language),
      at: (iso, currency = PLATFORM_CURRENCY) => (iso ? formatDateTime(iso, currency, language, t) : '—'),
      date: displayDate,
      status: (object, status) => statusText(t, object, status),
      event: (type) => eventText(t, type),
      entryKind: (kind) => entryKindText(t, kind),
    };
  }
}
