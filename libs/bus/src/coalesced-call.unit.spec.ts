import { AsyncLocalStorage } from 'node:async_hooks';
import { coalescedCall, type Outcome } from './coalesced-call';

interface Item {
  lane: string;
  n: number;
}

/** A remote side that records each request (one item, or a batch) and answers when the test says. */
class Remote {
  readonly requests: { items: Item[]; answer(outcomes: Outcome<string>[] | Error): void }[] = [];

  one = (item: Item): Promise<string> =>
    new Promise((resolve, reject) => {
      this.requests.push({
        items: [item],
        answer: (outcomes) => {
          if (outcomes instanceof Error) return reject(outcomes);
          const outcome = outcomes[0]!;
          if ('error' in outcome) reject(outcome.error);
          else resolve(outcome.value);
        },
      });
    });

  many = (items: Item[]): Promise<Outcome<string>[]> =>
    new Promise((resolve, reject) => {
      this.requests.push({ items, answer: (outcomes) => (outcomes instanceof Error ? reject(outcomes) : resolve(outcomes)) });
    });

  /** Answers request `index` with each item's number as text. */
  answerAll(index: number): void {
    const request = this.requests[index]!;
    request.answer(request.items.map((item) => ({ value: `r${item.n}` })));
  }
}

const settle = () => new Promise((resolve) => setImmediate(resolve));
const item = (n: number, lane = 'DZD'): Item => ({ lane, n });
const numbers = (remote: Remote) => remote.requests.map((request) => request.items.map((i) => i.n));

describe('coalescedCall', () => {
  it('a lone call leaves alone at the end of its turn of the event loop', async () => {
    const remote = new Remote();
    const call = coalescedCall({ one: remote.one, many: remote.many, batchMax: 10 });
    const answer = call(item(1));
    expect(numbers(remote)).toEqual([]);
    await settle();
    expect(numbers(remote)).toEqual([[1]]);
    remote.answerAll(0);
    expect(await answer).toBe('r1');
  });

  it('calls made in one turn leave together as one batch, in order', async () => {
    const remote = new Remote();
    const call = coalescedCall({ one: remote.one, many: remote.many, batchMax: 10 });
    // As the continuations of one group commit run: each in its own microtask, all in one turn.
    const answers = [1, 2, 3].map((n) => Promise.resolve().then(() => call(item(n))));
    await Promise.resolve(); // the three calls have been made
    expect(numbers(remote)).toEqual([]);
    await settle();
    expect(numbers(remote)).toEqual([[1, 2, 3]]);
    remote.answerAll(0);
    expect(await Promise.all(answers)).toEqual(['r1', 'r2', 'r3']);
  });

  it('calls made while one is in flight leave together after it, in order, each with its own outcome', async () => {
    const remote = new Remote();
    const call = coalescedCall({ one: remote.one, many: remote.many, batchMax: 10 });
    const answers = [call(item(1))];
    await settle();
    answers.push(...[2, 3, 4].map((n) => call(item(n))));
    await settle();
    expect(numbers(remote)).toEqual([[1]]);
    remote.answerAll(0);
    await settle();
    expect(numbers(remote)).toEqual([[1], [2, 3, 4]]);
    remote.requests[1]!.answer([{ value: 'r2' }, { error: new Error('refused 3') }, { value: 'r4' }]);
    const settled = await Promise.allSettled(answers);
    expect(settled.map((s) => (s.status === 'fulfilled' ? s.value : (s.reason as Error).message))).toEqual(['r1', 'r2', 'refused 3', 'r4']);
  });

  it('a batch holds at most batchMax calls; the rest leave in the next', async () => {
    const remote = new Remote();
    const call = coalescedCall({ one: remote.one, many: remote.many, batchMax: 2 });
    const answers = [1, 2, 3, 4, 5].map((n) => call(item(n)));
    await settle();
    expect(numbers(remote)).toEqual([[1, 2]]);
    remote.answerAll(0);
    await settle();
    expect(numbers(remote)).toEqual([[1, 2], [3, 4]]);
    remote.answerAll(1);
    await settle();
    expect(numbers(remote)).toEqual([[1, 2], [3, 4], [5]]);
    remote.answerAll(2);
    expect(await Promise.all(answers)).toEqual(['r1', 'r2', 'r3', 'r4', 'r5']);
  });

  it('a failed request fails each call of it, and the next leave all the same', async () => {
    const remote = new Remote();
    const call = coalescedCall({ one: remote.one, many: remote.many, batchMax: 10 });
    const first = call(item(1));
    await settle();
    const [second, third] = [call(item(2)), call(item(3))];
    remote.requests[0]!.answer(new Error('broker down'));
    await expect(first).rejects.toThrow('broker down');
    await settle();
    remote.requests[1]!.answer(new Error('still down'));
    await expect(second).rejects.toThrow('still down');
    await expect(third).rejects.toThrow('still down');
    const fourth = call(item(4));
    await settle();
    expect(numbers(remote)).toEqual([[1], [2, 3], [4]]);
    remote.answerAll(2);
    expect(await fourth).toBe('r4');
  });

  it('a batch answered with the wrong number of outcomes fails each of its calls', async () => {
    const remote = new Remote();
    const call = coalescedCall({ one: remote.one, many: remote.many, batchMax: 10 });
    const answers = [1, 2].map((n) => call(item(n)));
    await settle();
    remote.requests[0]!.answer([{ value: 'r1' }]);
    const settled = await Promise.allSettled(answers);
    expect(settled.map((s) => s.status === 'rejected' && (s.reason as Error).message)).toEqual(['a batch of 2 calls answered 1 outcomes', 'a batch of 2 calls answered 1 outcomes']);
  });

  it('lanes leave apart and at once: a call of another lane does not wait', async () => {
    const remote = new Remote();
    const call = coalescedCall({ one: remote.one, many: remote.many, batchMax: 10, laneOf: (i: Item) => i.lane });
    const answers = [call(item(1, 'DZD')), call(item(2, 'MAD'))];
    await settle();
    answers.push(call(item(3, 'DZD')), call(item(4, 'MAD')));
    await settle();
    expect(numbers(remote)).toEqual([[1], [2]]);
    remote.answerAll(1);
    await settle();
    expect(numbers(remote)).toEqual([[1], [2], [4]]);
    remote.answerAll(0);
    await settle();
    expect(numbers(remote)).toEqual([[1], [2], [4], [3]]);
    remote.answerAll(2);
    remote.answerAll(3);
    expect(await Promise.all(answers)).toEqual(['r1', 'r2', 'r3', 'r4']);
  });

  describe('gathering (gatherMs)', () => {
    /** A lane whose last request, of three calls, has just been answered. */
    const afterABatchOfThree = async (gatherMs: number) => {
      const remote = new Remote();
      const call = coalescedCall({ one: remote.one, many: remote.many, batchMax: 10, gatherMs });
      const first = [call(item(1))];
      await settle();
      first.push(call(item(2)), call(item(3)), call(item(4)));
      remote.answerAll(0);
      await settle();
      remote.answerAll(1);
      await Promise.all(first);
      return { remote, call };
    };

    it('after a request of n calls, the next leaves once n/2 calls wait, in their turn', async () => {
      const { remote, call } = await afterABatchOfThree(60_000);
      const answers = [call(item(5))];
      await settle();
      // One call of the three answered is back: the lane waits for another rather than send it alone.
      expect(numbers(remote)).toEqual([[1], [2, 3, 4]]);
      answers.push(call(item(6)));
      await settle();
      expect(numbers(remote)).toEqual([[1], [2, 3, 4], [5, 6]]);
      remote.answerAll(2);
      expect(await Promise.all(answers)).toEqual(['r5', 'r6']);
    });

    it('waits gatherMs at most: a lone call then leaves alone', async () => {
      const { remote, call } = await afterABatchOfThree(30);
      const answer = call(item(5));
      await settle();
      expect(numbers(remote)).toEqual([[1], [2, 3, 4]]);
      await new Promise((resolve) => setTimeout(resolve, 60));
      expect(numbers(remote)).toEqual([[1], [2, 3, 4], [5]]);
      remote.answerAll(2);
      expect(await answer).toBe('r5');
    });

    it('without gatherMs, a call after a request of many leaves at once', async () => {
      const { remote, call } = await afterABatchOfThree(0);
      const answer = call(item(5));
      await settle();
      expect(numbers(remote)).toEqual([[1], [2, 3, 4], [5]]);
      remote.answerAll(2);
      expect(await answer).toBe('r5');
    });
  });

  it("a request runs in its first caller's async context (its log context and trace), not in the one whose answer freed the lane", async () => {
    const context = new AsyncLocalStorage<string>();
    const seen: (string | undefined)[] = [];
    const remote = new Remote();
    const call = coalescedCall({
      one: (i: Item) => (seen.push(context.getStore()), remote.one(i)),
      many: (items: Item[]) => (seen.push(context.getStore()), remote.many(items)),
      batchMax: 10,
    });
    const answers = [context.run('first', () => call(item(0)))];
    await settle();
    answers.push(...['second', 'third'].map((name, n) => context.run(name, () => call(item(n + 1)))));
    remote.answerAll(0);
    await settle();
    remote.answerAll(1);
    await Promise.all(answers);
    expect(seen).toEqual(['first', 'second']);
  });

  it('refuses a batchMax under 2', () => {
    const remote = new Remote();
    expect(() => coalescedCall({ one: remote.one, many: remote.many, batchMax: 1 })).toThrow('batchMax must be an integer of at least 2, got 1');
  });
});
