// Marketplace cash reconciliation: cash collected on delivery travels recipient, carrier, cash point, wholesaler.
//   eval "$(npx payments bootstrap)"; node tools/run.js examples/quickstart/collections.ts
import { client, currency, eventAbout, orderNumber, run, setting } from './setup';

run(async () => {
  const payments = client();

  // 1. A collection for a delivery paid in cash, to be settled to your wholesaler connection.
  const collection = await payments.collections.create({ amount: 900_000, currency: currency(), order_reference: orderNumber(), beneficiary_connection: setting('PAY_WHOLESALER') });
  const { code } = await payments.collections.handoverCode(collection.id);
  console.log(`1. collection ${collection.id} ${collection.status}: the recipient hands the cash over with code ${code}`);

  // 2. The carrier confirms the handover: collection.collected. This is not a settlement: pay nothing yet.
  await payments.testHelpers.collections.confirmHandover(collection.id);
  await eventAbout(payments, collection.id, 'collection.collected');
  const collected = await payments.collections.retrieve(collection.id);
  console.log(`2. collection.collected: deposit due at ${collected.deposit?.point} by ${collected.deposit?.due_at}`);

  // 3. The cash agent counts the deposit; the exact amount settles: settlement.completed, wholesaler credited.
  await payments.testHelpers.collections.validateDeposit(collection.id, { amount_received: collection.amount });
  const event = await eventAbout(payments, collection.id, 'settlement.completed');
  const settled = await payments.collections.retrieve(collection.id);
  console.log(`3. ${event.type} (${event.id}): gross ${settled.settlement?.gross_amount}, fee ${settled.settlement?.fee_amount}, wholesaler credited ${settled.settlement?.net_amount}`);
});
