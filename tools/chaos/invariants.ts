import { sleep, untilAnswered, type Call } from './http';
import type { ChaosReceiver } from './receiver';
import { FINAL_STATUSES, RETRIEVE_PATH, type Operation } from './workload';
import { balanceOf, type RoundWorld } from './world';

/** How long a round's objects may take to reach a final status after the fault (sweeps resume stalled steps). */
const SETTLE_DEADLINE_MS = 90_000;
/** How long every event may take to reach the receiver. */
const DELIVERY_DEADLINE_MS = 90_000;
/**
 * An attempt cut by the fault is claimed again when its lease ends, and retried on the service clock:
 * events still missing this long after the round are brought forward by moving the clock.
 */
const CLOCK_MOVED_AFTER_MS = 5_000;
const RETRIES_DUE_AFTER_S = 3_600;
const PAGE = 100;

export interface Check {
  name: string;
  violations: string[];
}

/**
 * The invariants a round must hold after its fault: every object final, every acknowledged status kept,
 * the money exact per party and never below zero, the books balanced and reconciled with the objects'
 * histories. Its events are checked by `checkEvents`, a round later.
 */
export async function checkRound(admin: Call, http: Call, world: RoundWorld, operations: Operation[]): Promise<Check[]> {
  const objects = await settle(http, world, operations);
  return [finality(operations, objects), await money(admin, world, operations, objects), await trialBalance(admin), await reconciliation(admin)];
}

type Objects = Map<string, any>;

async function settle(http: Call, world: RoundWorld, operations: Operation[]): Promise<Objects> {
  const objects: Objects = new Map();
  const deadline = Date.now() + SETTLE_DEADLINE_MS;
  for (const operation of operations) {
    if (!operation.id) continue;
    for (;;) {
      const answer = await untilAnswered(() => http('GET', `${RETRIEVE_PATH[operation.kind]}/${operation.id}`, { key: world.apiKey }), SETTLE_DEADLINE_MS);
      if (answer.status === 200) objects.set(operation.id, answer.body);
      if ((answer.status === 200 && FINAL_STATUSES[operation.kind].includes(answer.body.status)) || Date.now() > deadline) break;
      await sleep(500);
    }
  }
  return objects;
}

function finality(operations: Operation[], objects: Objects): Check {
  const violations: string[] = [];
  for (const operation of operations) {
    if (!operation.id) {
      violations.push(`a ${operation.kind} create was never answered`);
      continue;
    }
    const current = objects.get(operation.id);
    if (!current || !FINAL_STATUSES[operation.kind].includes(current.status)) violations.push(`${operation.id} is not final: ${current?.status}`);
    else if (operation.acknowledged && operation.acknowledged !== current.status) violations.push(`${operation.id} was answered ${operation.acknowledged}, is now ${current.status}`);
  }
  return { name: 'every acknowledged operation final, as answered', violations };
}

async function money(admin: Call, world: RoundWorld, operations: Operation[], objects: Objects): Promise<Check> {
  const violations: string[] = [];
  const succeeded = (kind: Operation['kind'], status = 'succeeded') =>
    operations.filter((o) => o.kind === kind && o.id && objects.get(o.id)?.status === status).map((o) => objects.get(o.id!));
  const sum = (items: any[], f: (item: any) => number) => items.reduce((total, item) => total + f(item), 0);
  const payments = succeeded('payment');
  const refunds = succeeded('refund');
  const cash = succeeded('cash_payment');
  const supplier = succeeded('supplier_payment');
  const settled = succeeded('collection', 'settled');

  const expect = async (owner: string, what: string, expected: number) => {
    const actual = await balanceOf(admin, owner);
    if (actual !== expected) violations.push(`${what} ${owner}: balance ${actual}, expected ${expected}`);
    if (actual < 0) violations.push(`${what} ${owner} is below zero: ${actual}`);
  };
  await expect(world.customer, 'customer', world.customerFunds - sum(payments, (p) => p.amount) + sum(refunds, (r) => r.amount));
  await expect(world.merchant, 'merchant', sum([...payments, ...cash], (p) => p.amount - p.fee_amount) - sum(refunds, (r) => r.amount));
  await expect(world.wholesaler, 'wholesaler', sum(settled, (c) => c.settlement.net_amount));
  // A supplier payment's fee is not on the object: the business paid its amounts and a fee below each.
  const business = await balanceOf(admin, world.business);
  const paid = world.businessFunds - business;
  const amounts = sum(supplier, (s) => s.amount);
  if (business < 0) violations.push(`business ${world.business} is below zero: ${business}`);
  if (paid < amounts || paid >= 2 * amounts + (amounts === 0 ? 1 : 0)) violations.push(`business ${world.business} paid ${paid} for supplier payments of ${amounts}`);
  const beneficiary = await balanceOf(admin, world.beneficiary);
  if (beneficiary !== amounts) violations.push(`beneficiary ${world.beneficiary}: balance ${beneficiary}, expected ${amounts}`);
  return { name: 'money exact per party, nobody below zero', violations };
}

async function trialBalance(admin: Call): Promise<Check> {
  const answer = await untilAnswered(() => admin('GET', '/admin/v1/ledger/trial_balance'), SETTLE_DEADLINE_MS);
  const violations = answer.status !== 200 ? [`trial balance answered ${answer.status}`] : [];
  for (const line of answer.body?.currencies ?? []) {
    if (line.total_debits !== line.total_credits) violations.push(`${line.currency}: debits ${line.total_debits} ≠ credits ${line.total_credits}`);
  }
  return { name: 'trial balance balanced per currency', violations };
}

async function reconciliation(admin: Call): Promise<Check> {
  const answer = await untilAnswered(() => admin('POST', '/admin/v1/ledger/reconciliations'), SETTLE_DEADLINE_MS);
  const violations =
    answer.status !== 200 && answer.status !== 201
      ? [`reconciliation answered ${answer.status}`]
      : answer.body.status === 'balanced'
        ? []
        : (answer.body.differences as unknown[]).slice(0, 10).map((difference) => JSON.stringify(difference));
  return { name: 'ledger reconciled with the objects’ histories', violations };
}

/**
 * Every event of a round delivered, signed, under one id, and no object with the same event twice. Run a
 * round later: an attempt the fault cut is claimed again only when its lease ends (real time), and the
 * next round need not wait for that. `moveClock` (the last round) brings retries due on the service clock.
 */
export async function checkEvents(http: Call, receiver: ChaosReceiver, round: number, world: RoundWorld, moveClock: boolean): Promise<Check> {
  const violations: string[] = [];
  const listed: { id: string; type: string; data: { id: string } }[] = [];
  for (let after: string | undefined; ; ) {
    const page = await untilAnswered(() => http('GET', `/v1/events?limit=${PAGE}${after ? `&starting_after=${after}` : ''}`, { key: world.apiKey }), SETTLE_DEADLINE_MS);
    if (page.status !== 200) return { name: 'events', violations: [`GET /v1/events answered ${page.status}`] };
    listed.push(...page.body.data);
    if (!page.body.has_more) break;
    after = page.body.data.at(-1).id;
  }
  const seen = new Map<string, string>();
  for (const event of listed) {
    const key = `${event.data.id} ${event.type}`;
    if (seen.has(key)) violations.push(`${event.type} of ${event.data.id} recorded twice (${seen.get(key)}, ${event.id})`);
    seen.set(key, event.id);
  }
  const started = Date.now();
  const deadline = started + DELIVERY_DEADLINE_MS;
  let clockMoved = !moveClock;
  for (;;) {
    const missing = listed.filter((event) => !receiver.delivered(round).has(event.id));
    if (missing.length === 0) break;
    if (Date.now() > deadline) {
      violations.push(`${missing.length} of ${listed.length} events never delivered, e.g. ${missing[0]!.id} (${missing[0]!.type})`);
      break;
    }
    if (!clockMoved && Date.now() > started + CLOCK_MOVED_AFTER_MS) {
      clockMoved = true;
      await untilAnswered(() => http('POST', '/v1/test_helpers/clock/advance', { key: world.apiKey, body: { seconds: RETRIES_DUE_AFTER_S } }), SETTLE_DEADLINE_MS);
    }
    await sleep(500);
  }
  for (const [id, delivered] of receiver.delivered(round)) {
    const event = listed.find((e) => e.id === id);
    if (!event) violations.push(`the receiver got ${id}, which the events API does not list`);
    else if (JSON.parse(delivered.body).id !== id) violations.push(`event ${id} delivered with another id in its body`);
  }
  violations.push(...receiver.problems(round));
  return { name: 'every event delivered, signed, under one id; none twice', violations };
}
