import { join } from 'node:path';
import QRCode from 'qrcode';
import { groupPaymentReference } from '@pay/cash-domain';
import type { CashPaymentResource, CashPointResource, InstructionsPageContext } from '@pay/contracts';
import { DEFAULT_LANGUAGE, isLanguage, pageContext, Views, type MessageKey } from '@pay/hosted-ui';

/** The hosted pages of a cash payment: the instructions page (HTML) and its QR code (PNG). */

/** The QR code's path beside the instructions page: same origin, which the page's CSP (`img-src 'self'`) allows. */
export const qrCodePath = (cashPaymentId: string): string => `/hosted/cash_payments/${encodeURIComponent(cashPaymentId)}/qr.png`;

interface CashViews {
  instructions: {
    payment: CashPaymentResource;
    reference: string;
    merchant: string;
    qrCode: string;
    statusKey: MessageKey;
    /** Once the reference can no longer be paid: what the customer is told instead of how to pay. */
    closedKey: MessageKey | null;
    cashPoints: CashPointResource[];
    moreCashPoints: boolean;
  };
}

/** Read and compiled at start (beside src/, copied to dist/ by the build). */
const views = new Views<CashViews>(join(__dirname, '..', 'views'));

const CLOSED: Readonly<Record<CashPaymentResource['status'], MessageKey | null>> = {
  awaiting_payment: null,
  succeeded: 'cash.done_succeeded',
  expired: 'cash.done_expired',
  canceled: 'cash.done_canceled',
};

/** The printable instructions: whom the customer pays, for which order, how much, where and before when. */
export function renderInstructionsPage(payment: CashPaymentResource, cashPoints: { data: CashPointResource[]; has_more: boolean }, context: InstructionsPageContext): string {
  // The context crossed the bus as JSON: trust its language only once checked.
  const language = isLanguage(context.language) ? context.language : DEFAULT_LANGUAGE;
  const reference = groupPaymentReference(payment.payment_reference);
  return views.render(
    'instructions',
    {
      payment,
      reference,
      merchant: context.merchantName,
      qrCode: qrCodePath(payment.id),
      statusKey: `status.cash_payment.${payment.status}`,
      closedKey: CLOSED[payment.status],
      cashPoints: cashPoints.data,
      moreCashPoints: cashPoints.has_more,
    },
    pageContext({ language, brandName: context.brandName, title: ['cash.title', { reference }] }),
  );
}

/** A PNG QR code holding exactly the payment reference (error correction M, quiet zone of 4 modules). */
export async function renderQrCodePng(paymentReference: string): Promise<Buffer> {
  return QRCode.toBuffer(paymentReference, { type: 'png', errorCorrectionLevel: 'M', margin: 4, scale: 8 });
}
