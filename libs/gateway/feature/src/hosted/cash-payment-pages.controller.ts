import { Controller, Get, Inject, Param, Req, Res, UseFilters } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { MESSAGE_BUS, type MessageBus } from '@pay/bus';
import { HOSTED_ASSET_CACHE_SECONDS } from '@pay/kernel';
import { DirectoryRepository } from '../directory/directory.repository';
import { sendPage } from './views/headers';
import { notFoundAsUndefined } from './forms';
import { HostedPages } from './views/hosted-pages';
import { HostedErrorPages } from './views/hosted-error-pages';

/**
 * The hosted pages of a cash payment, reached by its unguessable id: instructions (HTML, rendered by
 * the cash app in the customer's language, with the merchant's name looked up here) and the QR code
 * (PNG). Their headers are set once the content exists; an unknown id is the Not found page (404).
 */
@UseFilters(HostedErrorPages)
@Controller('hosted/cash_payments')
export class CashPaymentsHostedController {
  constructor(
    @Inject(MESSAGE_BUS) private readonly bus: MessageBus,
    private readonly directory: DirectoryRepository,
    private readonly pages: HostedPages,
  ) {}

  @Get(':id/instructions')
  async instructions(@Req() request: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply, @Param('id') cashPaymentId: string): Promise<string> {
    const payment = await notFoundAsUndefined(() => this.bus.request('cash.cash-payments.retrieve', { integratorId: null, cashPaymentId }));
    if (!payment) return this.pages.message(request, reply, 404, { heading: 'page.not_found', text: 'page.not_found_text' });
    const merchant = await this.directory.findConnection(payment.merchant_connection);
    const language = this.pages.language(request, reply);
    const page = { language, brandName: this.pages.brandName, merchantName: merchant?.name ?? payment.merchant_connection };
    const { html } = await this.bus.request('cash.cash-payments.instructions-page', { cashPaymentId, page });
    return sendPage(reply, html, { language });
  }

  @Get(':id/qr.png')
  async qrCode(@Res({ passthrough: true }) reply: FastifyReply, @Param('id') cashPaymentId: string): Promise<Buffer> {
    const { pngBase64 } = await this.bus.request('cash.cash-payments.qr-code', { cashPaymentId });
    void reply.header('Content-Type', 'image/png').header('Cache-Control', `private, max-age=${HOSTED_ASSET_CACHE_SECONDS}`).header('X-Content-Type-Options', 'nosniff');
    return Buffer.from(pngBase64, 'base64');
  }
}
