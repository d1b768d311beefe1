// Cash checkout: the customer pays an online order in cash at a cash point, with a reference or a QR code.
//   eval "$(npx payments bootstrap)"; node tools/run.js examples/quickstart/cash-checkout.ts
import { client, currency, eventAbout, orderNumber, run, setting } from './setup';

run(async () => {
  const payments = client();

  // 1. Create the cash payment and show its reference, QR code and instructions page to the customer.
  const cash = await payments.cashPayments.create({ amount: 480_000, currency: currency(), order_reference: orderNumber(), merchant_connection: setting('PAY_MERCHANT') });
  console.log(`1. cash payment ${cash.id} ${cash.status}: reference ${cash.payment_reference}, pay before ${cash.expires_at}`);
  console.log(`   instructions ${cash.instructions_url}, QR code ${cash.qr_code_url}`);

  // 2. At the cash point, the agent types the reference and takes the exact amount. The sandbox:
  await payments.testHelpers.cashPayments.pay(cash.id, { cash_point: setting('PAY_CASH_POINT'), amount: cash.amount });

  // 3. cash_payment.succeeded: the merchant is credited; the receipt number is the customer's proof.
  const event = await eventAbout(payments, cash.id, 'cash_payment.succeeded');
  const paid = await payments.cashPayments.retrieve(cash.id);
  console.log(`2. ${event.type} (${event.id}): paid at ${paid.cash_point}, receipt ${paid.receipt_number}, merchant credited ${paid.net_amount}`);
});
