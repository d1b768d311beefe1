import { deciderSpec } from '@pay/testing';
import {
  checkIban,
  expectedPayoutMovements,
  payoutBatchDecider,
  payoutDecider,
  toPayoutBatchResource,
  toPayoutResource,
  type Payout,
  type PayoutEvent,
  type PayoutTerms,
} from './index';

const payoutId = 'po_000000000000000000000001';
const t0 = new Date('2026-11-28T10:00:00.000Z');
const t1 = new Date('2026-11-28T11:00:00.000Z');
const terms: PayoutTerms = {
  payoutId,
  integratorId: 'int_1',
  connection: 'conn_1',
  bankAccountId: 'ba_1',
  amount: 1_250_000,
  currency: 'DZD',
  description: null,
  createdAt: t0.toISOString(),
};
const requested: PayoutEvent = { type: 'PayoutRequested', ...terms };
const debited: PayoutEvent = { type: 'PayoutDebited', payoutId, ledgerEntryId: 'je_1', debitedAt: t0.toISOString() };
const batched: PayoutEvent = { type: 'PayoutBatched', payoutId, batchId: 'pob_1', batchedAt: t1.toISOString() };
const booked: PayoutEvent = { type: 'PayoutBooked', payoutId, paidAt: '2026-11-29T00:00:00.000Z', entryRef: 'R1' };
const returned: PayoutEvent = { type: 'PayoutReturned', payoutId, code: 'AC04', entryRef: 'R2', returnedAt: t1.toISOString() };
const cancelRequested: PayoutEvent = { type: 'PayoutCancelRequested', payoutId, requestedAt: t1.toISOString() };

const pending = [requested, debited];
const inTransit = [...pending, batched];
const paid = [...inTransit, booked, { type: 'PayoutPaid', payoutId, ledgerEntryId: 'je_3', paidAt: booked.paidAt } as PayoutEvent];

const spec = deciderSpec(payoutDecider);
const stateOf = (events: PayoutEvent[]): Payout => events.reduce(payoutDecider.evolve, payoutDecider.initialState);
const complete = { type: 'CompleteTransfer' as const, payoutId, entryId: 'je_2', now: t1 };

describe('payout decider', () => {
  it('a request opens the stream; a repeat decides nothing', () => {
    spec.given([]).when({ type: 'RequestPayout', terms }).then([requested]);
    spec.given([requested]).when({ type: 'RequestPayout', terms }).then([]);
  });

  it('the debit: completed makes it pending, rejected (insufficient_balance) is never a payout', () => {
    spec.given([requested]).when({ type: 'CompleteDebit', payoutId, outcome: { status: 'completed', entryId: 'je_1' }, now: t0 }).then([debited]);
    spec
      .given([requested])
      .when({ type: 'CompleteDebit', payoutId, outcome: { status: 'rejected', reason: 'insufficient_balance' }, now: t0 })
      .then([{ type: 'PayoutRejected', payoutId, reason: 'insufficient_balance', rejectedAt: t0.toISOString() }]);
    spec.given(pending).when({ type: 'CompleteDebit', payoutId, outcome: { status: 'completed', entryId: 'je_1' }, now: t0 }).then([]);
  });

  it('cancel: from pending, an intent then the reversal; from anything else invalid_status', () => {
    spec.given(pending).when({ type: 'CancelPayout', payoutId, now: t1 }).then([cancelRequested]);
    spec.given([...pending, cancelRequested]).when({ type: 'CancelPayout', payoutId, now: t1 }).then([]);
    spec.given([...pending, cancelRequested]).when(complete).then([{ type: 'PayoutCanceled', payoutId, ledgerEntryId: 'je_2', canceledAt: t1.toISOString() }]);
    spec.given(inTransit).when({ type: 'CancelPayout', payoutId, now: t1 }).thenFails('invalid_status');
    spec.given(paid).when({ type: 'CancelPayout', payoutId, now: t1 }).thenFails('invalid_status');
  });

  it('a batch takes a pending payout only (a canceled or batched one stays out)', () => {
    spec.given(pending).when({ type: 'AddToBatch', payoutId, batchId: 'pob_1', now: t1 }).then([batched]);
    spec.given(inTransit).when({ type: 'AddToBatch', payoutId, batchId: 'pob_2', now: t1 }).then([]);
    spec.given([...pending, cancelRequested]).when({ type: 'AddToBatch', payoutId, batchId: 'pob_1', now: t1 }).then([]);
    expect(stateOf(inTransit)).toMatchObject({ status: 'in_transit', batchId: 'pob_1' });
  });

  it('paid: a booked debit of a payout in transit, then the transfer to paid out; paid_at is the booking date', () => {
    spec.given(inTransit).when({ type: 'BookPayment', payoutId, paidAt: booked.paidAt, entryRef: 'R1' }).then([booked]);
    spec.given([...inTransit, booked]).when({ type: 'BookPayment', payoutId, paidAt: booked.paidAt, entryRef: 'R1' }).then([]);
    // Recorded at the transfer's completion, on the service clock, whatever the booking date.
    spec.given([...inTransit, booked]).when(complete).then([{ type: 'PayoutPaid', payoutId, ledgerEntryId: 'je_2', paidAt: booked.paidAt, recordedAt: t1.toISOString() }]);
    spec.given(pending).when({ type: 'BookPayment', payoutId, paidAt: booked.paidAt, entryRef: 'R1' }).thenFails('invalid_status');
    spec.given(paid).when({ type: 'BookPayment', payoutId, paidAt: booked.paidAt, entryRef: 'R7' }).thenFails('invalid_status');
    expect(toPayoutResource(stateOf(paid) as never)).toMatchObject({ status: 'paid', paid_at: booked.paidAt, batch: 'pob_1' });
  });

  it('returned by the bank: failed with its reason code, the amount back; a return after paid is refused (unmatched)', () => {
    spec.given(inTransit).when({ type: 'ReturnPayout', payoutId, code: 'AC04', entryRef: 'R2', now: t1 }).then([returned]);
    spec.given([...inTransit, returned]).when(complete).then([{ type: 'PayoutFailed', payoutId, ledgerEntryId: 'je_2', failedAt: t1.toISOString() }]);
    spec.given(paid).when({ type: 'ReturnPayout', payoutId, code: 'AC04', entryRef: 'R2', now: t1 }).thenFails('invalid_status');
    spec.given(pending).when({ type: 'ReturnPayout', payoutId, code: 'AC04', entryRef: 'R2', now: t1 }).thenFails('invalid_status');
    const failed = stateOf([...inTransit, returned, { type: 'PayoutFailed', payoutId, ledgerEntryId: 'je_2', failedAt: t1.toISOString() }]);
    expect(toPayoutResource(failed as never)).toMatchObject({ status: 'failed', failure_reason: 'returned_by_bank', failure_code: 'AC04', paid_at: null });
  });

  it('an intent shows the status its step leaves until the step answers; CompleteTransfer without an intent decides nothing', () => {
    expect(toPayoutResource(stateOf([...pending, cancelRequested]) as never).status).toBe('pending');
    expect(toPayoutResource(stateOf([...inTransit, booked]) as never).status).toBe('in_transit');
    spec.given(pending).when(complete).then([]);
    spec.given(inTransit).when(complete).then([]);
  });

  it('expected movements: in transit while pending, nothing net once canceled, paid out once paid', () => {
    expect(expectedPayoutMovements(stateOf(pending) as never).byReference[payoutId]).toEqual({ conn_1: -1_250_000, 'platform:payouts_in_transit:DZD': 1_250_000 });
    expect(expectedPayoutMovements(stateOf(paid) as never).byReference[payoutId]).toEqual({ conn_1: -1_250_000, 'platform:paid_out:DZD': 1_250_000 });
    expect(expectedPayoutMovements(stateOf([...pending, cancelRequested, { type: 'PayoutCanceled', payoutId, ledgerEntryId: 'je_2', canceledAt: t1.toISOString() }]) as never).byReference).toEqual({});
  });
});

describe('payout batch decider', () => {
  const spec = deciderSpec(payoutBatchDecider);
  const opened = { type: 'BankBatchOpened' as const, batchId: 'pob_1', currency: 'DZD' as const, candidates: ['po_1', 'po_2'], openedAt: t0.toISOString() };
  it('opens with its candidates, closes once with the payouts it holds; repeats decide nothing', () => {
    spec.given([]).when({ type: 'OpenBatch', batchId: 'pob_1', currency: 'DZD', candidates: ['po_1', 'po_2'], now: t0 }).then([opened]);
    spec.given([opened]).when({ type: 'OpenBatch', batchId: 'pob_1', currency: 'DZD', candidates: [], now: t0 }).then([]);
    const closed = { type: 'BankBatchClosed' as const, batchId: 'pob_1', payouts: [{ payoutId: 'po_1', amount: 100 }], closedAt: t1.toISOString() };
    spec.given([opened]).when({ type: 'CloseBatch', batchId: 'pob_1', payouts: closed.payouts, now: t1 }).then([closed]);
    spec.given([opened, closed]).when({ type: 'CloseBatch', batchId: 'pob_1', payouts: [], now: t1 }).then([]);
    const state = [opened, closed].reduce(payoutBatchDecider.evolve, payoutBatchDecider.initialState);
    expect(toPayoutBatchResource(state as never)).toEqual({ object: 'payout_batch', id: 'pob_1', currency: 'DZD', count: 1, total_amount: 100, created_at: t0.toISOString() });
  });
});

describe('checkIban', () => {
  it('takes the electronic or printed form, and ties the country to the currency', () => {
    expect(checkIban('dz58 0002 1000 0111 3000 0005 70', 'DZD')).toEqual({ iban: 'DZ580002100001113000000570', country: 'DZ' });
    expect(() => checkIban('DZ580002100001113000000570', 'MAD')).toThrow(expect.objectContaining({ code: 'invalid_request', param: 'iban' }));
    expect(() => checkIban('DZ590002100001113000000570', 'DZD')).toThrow(expect.objectContaining({ param: 'iban' }));
    expect(() => checkIban('x'.repeat(100), 'DZD')).toThrow(expect.objectContaining({ param: 'iban' }));
  });
});
