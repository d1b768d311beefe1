import { KeyOrderedDispatcher, type KeyOrderedDispatcherOptions, type PartitionMessage } from './key-ordered-dispatcher';

/** A handler whose end the test decides. */
function deferred(): { promise: Promise<void>; resolve: () => void; reject: (error: Error) => void } {
  let resolve!: () => void;
  let reject!: (error: Error) => void;
  const promise = new Promise<void>((res, rej) => ((resolve = res), (reject = rej)));
  return { promise, resolve, reject };
}

const flush = () => new Promise<void>((resolve) => setImmediate(resolve));

const message = (offset: number, key: string | null, partition = 0, topic = 'ledger.transfer'): PartitionMessage => ({ topic, partition, offset: String(offset), key });

function dispatcher(options: Partial<KeyOrderedDispatcherOptions> = {}) {
  const started: string[] = [];
  const answers = new Map<string, ReturnType<typeof deferred>>();
  const subject = new KeyOrderedDispatcher({ inFlightMax: 100, uncommittedMax: 1_000, ...options });
  const dispatch = (m: PartitionMessage) =>
    subject.dispatch(m, () => {
      started.push(m.offset);
      const answer = deferred();
      answers.set(m.offset, answer);
      return answer.promise;
    });
  const answer = async (offset: number) => {
    answers.get(String(offset))!.resolve();
    await flush();
  };
  return { subject, dispatch, answer, answers, started };
}

describe('KeyOrderedDispatcher', () => {
  it('messages with different keys run at once; one key runs in offset order, each after the previous is answered', async () => {
    const { dispatch, answer, started } = dispatcher();
    dispatch(message(0, 'pay_a'));
    dispatch(message(1, 'pay_b'));
    dispatch(message(2, 'pay_a'));
    dispatch(message(3, 'pay_a'));
    await flush();
    expect(started).toEqual(['0', '1']);
    await answer(0);
    expect(started).toEqual(['0', '1', '2']);
    await answer(2);
    expect(started).toEqual(['0', '1', '2', '3']);
  });

  it('the same key on another partition or topic is not held back (Kafka orders a partition, not more)', async () => {
    const { dispatch, started } = dispatcher();
    dispatch(message(0, 'pay_a', 0));
    dispatch(message(0, 'pay_a', 1));
    dispatch(message(1, 'pay_a', 0, 'payments.authorize'));
    await flush();
    expect(started).toEqual(['0', '0', '1']);
  });

  it('messages without a key run without order', async () => {
    const { dispatch, started } = dispatcher();
    dispatch(message(0, null));
    dispatch(message(1, null));
    await flush();
    expect(started).toEqual(['0', '1']);
  });

  it('offsets are committable only up to the oldest message not yet answered', async () => {
    const { subject, dispatch, answer } = dispatcher();
    for (const [offset, key] of [[10, 'a'], [11, 'b'], [12, 'c']] as const) dispatch(message(offset, key));
    await flush();
    expect(subject.offsetsToCommit()).toEqual([{ topic: 'ledger.transfer', partition: 0, offset: '10' }]);
    await answer(11);
    await answer(12);
    expect(subject.offsetsToCommit()).toEqual([]);
    await answer(10);
    expect(subject.offsetsToCommit()).toEqual([{ topic: 'ledger.transfer', partition: 0, offset: '13' }]);
    expect(subject.offsetsToCommit()).toEqual([]);
  });

  it('a failed commit is handed out again', async () => {
    const { subject, dispatch, answer } = dispatcher();
    dispatch(message(5, 'a'));
    await flush();
    await answer(5);
    const offsets = subject.offsetsToCommit();
    expect(offsets).toEqual([{ topic: 'ledger.transfer', partition: 0, offset: '6' }]);
    subject.commitFailed(offsets);
    expect(subject.offsetsToCommit()).toEqual(offsets);
  });

  it('a message refetched after a rebalance (an offset already taken here) is skipped, not run twice', async () => {
    const { subject, dispatch, started } = dispatcher();
    dispatch(message(0, 'a'));
    dispatch(message(1, 'b'));
    subject.assigned({ 'ledger.transfer': [0] }, true);
    expect(dispatch(message(0, 'a'))).toBe('redelivered');
    expect(dispatch(message(2, 'a'))).toBe('accepted');
    await flush();
    expect(started).toEqual(['0', '1']);
  });

  it('a partition given to another member is forgotten: its answers are not committed here, and it starts afresh if it comes back', async () => {
    const { subject, dispatch, answer, started } = dispatcher();
    dispatch(message(0, 'a'));
    await flush();
    subject.assigned({ 'ledger.transfer': [1] }, true);
    await answer(0);
    expect(subject.offsetsToCommit()).toEqual([]);
    subject.assigned({ 'ledger.transfer': [0] }, true);
    expect(dispatch(message(0, 'a'))).toBe('accepted');
    await flush();
    expect(started).toEqual(['0', '0']);
  });

  it('a new member id forgets every partition (another member may have read them in between)', async () => {
    const { subject, dispatch } = dispatcher();
    dispatch(message(0, 'a'));
    subject.assigned({ 'ledger.transfer': [0] }, false);
    expect(dispatch(message(0, 'a'))).toBe('accepted');
  });

  it('past inFlightMax there is no room until a message is answered', async () => {
    const { subject, dispatch, answer } = dispatcher({ inFlightMax: 2, uncommittedMax: 10 });
    dispatch(message(0, 'a'));
    dispatch(message(1, 'b'));
    expect(subject.hasRoom()).toBe(false);
    expect(() => dispatch(message(2, 'c'))).toThrow(/past the bounds/);
    let roomy = false;
    void subject.waitForRoom().then(() => (roomy = true));
    await flush();
    expect(roomy).toBe(false);
    await answer(1);
    expect(roomy).toBe(true);
    expect(subject.inFlight).toBe(1);
  });

  it('answered messages behind a slow one count against uncommittedMax', async () => {
    const { subject, dispatch, answer } = dispatcher({ inFlightMax: 2, uncommittedMax: 3 });
    dispatch(message(0, 'slow'));
    dispatch(message(1, 'b'));
    await flush();
    await answer(1);
    dispatch(message(2, 'c'));
    await flush();
    await answer(2);
    expect(subject.inFlight).toBe(1);
    expect(subject.hasRoom()).toBe(false);
    await answer(0);
    expect(subject.hasRoom()).toBe(true);
  });

  it('a handler that throws counts as answered (reported), so the partition is not stuck', async () => {
    const errors: unknown[] = [];
    const { subject, dispatch, answers } = dispatcher({ onError: (error) => errors.push(error) });
    dispatch(message(0, 'a'));
    await flush();
    answers.get('0')!.reject(new Error('bug'));
    await flush();
    expect(errors).toHaveLength(1);
    expect(subject.offsetsToCommit()).toEqual([{ topic: 'ledger.transfer', partition: 0, offset: '1' }]);
  });

  it('once closing, messages are refused and waiting for room ends', async () => {
    const { subject, dispatch } = dispatcher({ inFlightMax: 1, uncommittedMax: 1 });
    dispatch(message(0, 'a'));
    const waiting = subject.waitForRoom();
    subject.stopAccepting();
    await waiting;
    expect(dispatch(message(1, 'b'))).toBe('refused');
    expect(subject.offsetsToCommit()).toEqual([{ topic: 'ledger.transfer', partition: 0, offset: '0' }]);
  });
});
