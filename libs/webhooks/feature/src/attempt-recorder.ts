/**
 * Group commit of finished attempts: those that finish while a batch is being written form the next
 * batch, so a lone attempt waits for nothing and a busy dispatcher writes one statement for many. A
 * batch that fails is written again one attempt at a time, so that one bad record fails alone.
 */
export class AttemptRecorder<T> {
  private queue: { item: T; done: (error?: unknown) => void }[] = [];
  private writing = false;

  constructor(
    private readonly write: (batch: T[]) => Promise<void>,
    private readonly batchMax: number,
  ) {}

  /** Resolves once `item` is written (with the batch it joined), rejects when it could not be. */
  record(item: T): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.queue.push({ item, done: (error) => (error === undefined ? resolve() : reject(error)) });
      if (!this.writing) void this.drain();
    });
  }

  private async drain(): Promise<void> {
    this.writing = true;
    try {
      while (this.queue.length > 0) {
        const batch = this.queue.splice(0, this.batchMax);
        try {
          await this.write(batch.map((entry) => entry.item));
          for (const entry of batch) entry.done();
        } catch (error) {
          if (batch.length === 1) batch[0]!.done(error ?? new Error('attempt record failed'));
          else await this.oneByOne(batch);
        }
      }
    } finally {
      this.writing = false;
    }
  }

  private async oneByOne(batch: { item: T; done: (error?: unknown) => void }[]): Promise<void> {
    for (const entry of batch) {
      try {
        await this.write([entry.item]);
        entry.done();
      } catch (error) {
        entry.done(error ?? new Error('attempt record failed'));
      }
    }
  }
}
