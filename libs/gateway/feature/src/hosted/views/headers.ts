import type { FastifyReply } from 'fastify';
import type { Language } from '@pay/hosted-ui';

/**
 * The CSP of every hosted page, the cash instructions included: styles from our origin only (no
 * inline style), no script unless this response's nonce allows our own (the agents' QR scanner),
 * images from our origin (the QR code), forms only to this origin, never framed.
 */
export const hostedPageCsp = (scriptNonce?: string): string =>
  [
    "default-src 'none'",
    "style-src 'self'",
    "img-src 'self'",
    ...(scriptNonce ? [`script-src 'nonce-${scriptNonce}'`] : []),
    "form-action 'self'",
    "frame-ancestors 'none'",
    "base-uri 'none'",
  ].join('; ');

export interface PageHeaders {
  status?: number;
  language: Language;
  scriptNonce?: string;
  /** The agents' scanner may ask for the camera; no other page may. */
  camera?: boolean;
}

/** Sets the headers of a hosted page (never cached, no referrer: the URL names the object) and returns its HTML. */
export const sendPage = (reply: FastifyReply, html: string, { status = 200, language, scriptNonce, camera = false }: PageHeaders): string => {
  void reply
    .status(status)
    .header('Content-Type', 'text/html; charset=utf-8')
    .header('Content-Language', language)
    .header('Cache-Control', 'no-store')
    .header('Content-Security-Policy', hostedPageCsp(scriptNonce))
    .header('Permissions-Policy', `camera=${camera ? '(self)' : '()'}, microphone=(), geolocation=()`)
    .header('X-Frame-Options', 'DENY')
    .header('X-Content-Type-Options', 'nosniff')
    .header('Referrer-Policy', 'no-referrer');
  return html;
};
