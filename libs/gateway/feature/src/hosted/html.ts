import type { FastifyReply } from 'fastify';
import { escapeHtml } from '@pay/kernel';

export { escapeHtml, formatAmount, formatTime as formatDate } from '@pay/kernel';

/** A label in English with its French and Arabic translations, for this market. */
export const label = (en: string, fr: string, ar: string): string =>
  `${escapeHtml(en)} <span class="tr" lang="fr">${escapeHtml(fr)}</span> <span class="tr" lang="ar" dir="rtl">${escapeHtml(ar)}</span>`;

const STYLE = `
  body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;max-width:34rem;margin:0 auto;padding:1.25rem;color:#111;background:#fff;line-height:1.45}
  h1{font-size:1.4rem;margin:.2rem 0 1rem}
  table{border-collapse:collapse;width:100%;margin-bottom:1rem} th,td{text-align:start;padding:.4rem .3rem;border-bottom:1px solid #ddd;vertical-align:top}
  th{width:40%;font-weight:600} td{overflow-wrap:anywhere}
  .tr{display:block;font-size:.8rem;font-weight:400;color:#444}
  label{display:block;margin:.7rem 0 .2rem;font-weight:600}
  input{font-size:1.1rem;padding:.55rem;width:100%;box-sizing:border-box;border:1px solid #555;border-radius:4px}
  button{font-size:1.05rem;padding:.7rem 1.2rem;margin:.8rem .5rem 0 0;border-radius:4px;border:1px solid #0b3d91;background:#0b3d91;color:#fff;cursor:pointer}
  button.secondary{background:#fff;color:#0b3d91}
  .notice{padding:.7rem;border-radius:4px;background:#eef3fb;border:1px solid #0b3d91}
  .error{padding:.7rem;border-radius:4px;background:#fdecea;border:1px solid #a4262c;color:#6b0f14}
  .status{font-weight:700}
  a{color:#0b3d91}`;

/** The whole page: small, readable on a phone, no scripts. */
export const page = (title: string, body: string): string => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title><style>${STYLE}</style></head>
<body><main>${body}</main></body></html>`;

export const rows = (entries: [string, string][]): string =>
  `<table>${entries.map(([k, v]) => `<tr><th scope="row">${k}</th><td>${v}</td></tr>`).join('')}</table>`;

export const hiddenCsrf = (token: string): string => `<input type="hidden" name="csrf" value="${escapeHtml(token)}">`;

/**
 * Security headers of every hosted page: no scripts at all, forms only to this origin, never framed,
 * never cached, no referrer (the URL names the object).
 */
/** No scripts, no framing, forms only to this origin: every hosted page, the cash instructions included. */
export const HOSTED_PAGE_CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

export const sendPage = (reply: FastifyReply, html: string, status = 200): string => {
  void reply
    .status(status)
    .header('Content-Type', 'text/html; charset=utf-8')
    .header('Cache-Control', 'no-store')
    .header('Content-Security-Policy', HOSTED_PAGE_CSP)
    .header('X-Frame-Options', 'DENY')
    .header('X-Content-Type-Options', 'nosniff')
    .header('Referrer-Policy', 'no-referrer');
  return html;
};

/** After a form post: see the result with a GET (so a reload does not post again). */
export const redirect = (reply: FastifyReply, location: string): void => {
  void reply.status(303).header('Location', location).header('Cache-Control', 'no-store').send();
};
