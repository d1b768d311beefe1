import QRCode from 'qrcode';
import { groupPaymentReference } from '@pay/cash-domain';
import type { CashPaymentResource, CashPointResource } from '@pay/contracts';
import { escapeHtml, formatAmount, formatTime } from '@pay/kernel';

/** The hosted pages of a cash payment: the instructions page (HTML) and its QR code (PNG). */

const STATUS_TEXT: Record<CashPaymentResource['status'], string> = {
  awaiting_payment: 'Awaiting payment',
  succeeded: 'Paid',
  expired: 'Expired: this reference can no longer be paid',
  canceled: 'Canceled: this reference can no longer be paid',
};

/** The QR code's path beside the instructions page: same origin, which the page's CSP (`img-src 'self'`) allows. */
export const qrCodePath = (cashPaymentId: string): string => `/hosted/cash_payments/${encodeURIComponent(cashPaymentId)}/qr.png`;

export function renderInstructionsPage(payment: CashPaymentResource, cashPoints: { data: CashPointResource[]; has_more: boolean }): string {
  const open = payment.status === 'awaiting_payment';
  const rows: [string, string][] = [
    ['Amount', formatAmount(payment.amount, payment.currency)],
    ['Currency', payment.currency],
    ['Payment reference', groupPaymentReference(payment.payment_reference)],
    ['Order', payment.order_reference],
    ['Pay before', formatTime(payment.expires_at)],
    ['Status', STATUS_TEXT[payment.status]],
  ];
  const points = cashPoints.data
    .map((point) => `<li><strong>${escapeHtml(point.name)}</strong><br>${escapeHtml(point.address)}</li>`)
    .join('\n');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Pay in cash: ${escapeHtml(payment.payment_reference)}</title>
<style>body{font-family:system-ui,sans-serif;max-width:36rem;margin:2rem auto;padding:0 1rem}th{text-align:left;padding-right:1rem}
.ref{font-size:1.6rem;letter-spacing:.1em;font-family:ui-monospace,monospace}img{width:12rem;height:12rem;image-rendering:pixelated}</style></head>
<body><h1>Pay your order in cash</h1>
${open ? `<p>Go to a cash point below before the deadline, give the payment reference (or show the QR code) and pay exactly <strong>${escapeHtml(formatAmount(payment.amount, payment.currency))}</strong>. Keep your receipt.</p>` : ''}
<p class="ref" id="payment-reference">${escapeHtml(groupPaymentReference(payment.payment_reference))}</p>
<p><img src="${escapeHtml(qrCodePath(payment.id))}" alt="QR code of payment reference ${escapeHtml(payment.payment_reference)}"></p>
<table>${rows.map(([k, v]) => `<tr><th>${escapeHtml(k)}</th><td>${escapeHtml(v)}</td></tr>`).join('')}</table>
<h2>Cash points</h2>
<ul id="cash-points">
${points || '<li>No cash point is open yet.</li>'}
</ul>
${cashPoints.has_more ? '<p>More cash points are open near you.</p>' : ''}
</body></html>`;
}

/** A PNG QR code holding exactly the payment reference (error correction M, quiet zone of 4 modules). */
export async function renderQrCodePng(paymentReference: string): Promise<Buffer> {
  return QRCode.toBuffer(paymentReference, { type: 'png', errorCorrectionLevel: 'M', margin: 4, scale: 8 });
}
