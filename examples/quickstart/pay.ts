// Pay: a customer authorizes a payment on the hosted page; the merchant is credited the net amount.
//   eval "$(npx payments bootstrap)"; node tools/run.js examples/quickstart/pay.ts
import { client, currency, eventAbout, orderNumber, run, setting } from './setup';

run(async () => {
  const payments = client();
  const merchant = setting('PAY_MERCHANT');
  const order = orderNumber();

  // 1. Your checkout creates the payment; the Idempotency-Key names this attempt of this order.
  const payment = await payments.payments.create(
    { amount: 1_250_000, currency: currency(), order_reference: order, merchant_connection: merchant, return_url: 'https://shop.example/return' },
    { idempotencyKey: `order-${order}-attempt-1` },
  );
  console.log(`1. payment ${payment.id} ${payment.status}: send the customer to ${payment.authorization_url}`);

  // 2. The customer signs in with phone and PIN and confirms. The sandbox does it for them:
  await payments.testHelpers.payments.authorize(payment.id, { customer: setting('PAY_CUSTOMER') });

  // 3. Your webhook endpoint receives payment.succeeded; ship the order then (not on the return_url).
  const event = await eventAbout(payments, payment.id, 'payment.succeeded');
  const paid = await payments.payments.retrieve(payment.id);
  console.log(`2. ${event.type} (${event.id}): ${paid.amount} charged, fee ${paid.fee_amount}, merchant credited ${paid.net_amount}`);

  // 4. A partial refund goes back to the customer's balance; the merchant's balance shows both.
  const refund = await payments.refunds.create({ payment: payment.id, amount: 250_000, reason: 'one item returned' });
  const balance = await payments.balances.retrieve(merchant);
  console.log(`3. refund ${refund.id} ${refund.status}; merchant balance ${balance.available} ${balance.currency}`);
});
