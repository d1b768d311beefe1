// Supplier payments: a business pays an authorized beneficiary once an approver of the business approves.
//   eval "$(npx payments bootstrap)"; node tools/run.js examples/quickstart/supplier-payments.ts
import { client, currency, eventAbout, orderNumber, run, setting } from './setup';

run(async () => {
  const payments = client();
  const business = setting('PAY_BUSINESS');
  const invoice = `INV-${orderNumber()}`;

  // 1. Check the beneficiary is still authorized for this payer, then ask for the payment.
  const beneficiary = await payments.beneficiaries.retrieve(setting('PAY_BENEFICIARY'), { payer_connection: business });
  const payment = await payments.supplierPayments.create(
    { payer_connection: business, beneficiary: beneficiary.id, amount: 2_000_000, currency: currency(), invoice_reference: invoice, description: 'November delivery' },
    { idempotencyKey: `${invoice}-1` },
  );
  console.log(`1. supplier payment ${payment.id} ${payment.status}: the approver opens ${payment.approval_url}`);

  // 2. After a time-out, never create again with a new key: ask whether the invoice already has one.
  const existing = await payments.supplierPayments.list({ invoice_reference: invoice }).page();
  console.log(`2. payments listed for ${invoice}: ${existing.data.map((p) => `${p.id} ${p.status}`).join(', ')}`);

  // 3. The approver approves (the sandbox does it); the business is debited the amount and the fee.
  await payments.testHelpers.supplierPayments.approve(payment.id);
  const event = await eventAbout(payments, payment.id, 'supplier_payment.succeeded');
  const paid = await payments.supplierPayments.retrieve(payment.id);
  console.log(`3. ${event.type} (${event.id}): ${paid.amount} to ${paid.beneficiary}, fee ${paid.fee_amount}`);
});
