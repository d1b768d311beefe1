import { Controller, Get, Header, Param } from '@nestjs/common';
import type { PaymentResource } from '@pay/contracts';
import { CURRENCY_SCALE } from '@pay/kernel';
import { GatewayCore } from '../gateway.core';

const escapeHtml = (text: string): string =>
  text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

export const formatAmount = (amountMinor: number, currency: PaymentResource['currency']): string => {
  const scale = CURRENCY_SCALE[currency];
  const major = (amountMinor / 10 ** scale).toFixed(scale);
  return `${major} ${currency}`;
};

/**
 * The page at authorization_url. It shows the payment; the customer's sign-in and authorization on it
 * come with the hosted-pages issue (the sandbox helpers run the same commands meanwhile).
 */
@Controller('hosted')
export class HostedController {
  constructor(private readonly gateway: GatewayCore) {}

  @Get('payments/:id')
  @Header('Content-Type', 'text/html; charset=utf-8')
  @Header('Cache-Control', 'no-store')
  @Header('Content-Security-Policy', "default-src 'none'; style-src 'unsafe-inline'")
  @Header('X-Frame-Options', 'DENY')
  async payment(@Param('id') paymentId: string): Promise<string> {
    const payment = await this.gateway.bus.request('payments.retrieve', { integratorId: null, paymentId });
    const rows: [string, string][] = [
      ['Amount', formatAmount(payment.amount, payment.currency)],
      ['Order', payment.order_reference],
      ['Status', payment.status],
      ['Authorize before', payment.expires_at],
    ];
    return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Authorize payment ${escapeHtml(payment.id)}</title>
<style>body{font-family:system-ui,sans-serif;max-width:32rem;margin:3rem auto;padding:0 1rem}th{text-align:left;padding-right:1rem}</style></head>
<body><h1>Authorize a payment</h1>
<table>${rows.map(([k, v]) => `<tr><th>${escapeHtml(k)}</th><td>${escapeHtml(v)}</td></tr>`).join('')}</table>
</body></html>`;
  }
}
