import type { HttpClient, Query, RequestOptions } from './http';
import { LIST_TO_ARRAY_MAX_DEFAULT } from './limits';
import type { List, ListParams } from './types';

/**
 * A list call: iterate it with `for await` to walk every page (newest first), or read one page with
 * `.page()`. Nothing is fetched until one of them is used.
 *
 * ```ts
 * for await (const payment of client.payments.list({ status: 'succeeded' })) console.log(payment.id);
 * const first = await client.payments.list({ limit: 100 }).page();
 * ```
 */
export class ListCall<T extends { id: string }, P extends ListParams = ListParams> implements AsyncIterable<T> {
  constructor(
    private readonly http: HttpClient,
    private readonly path: string,
    private readonly params: P,
    private readonly options: RequestOptions = {},
  ) {}

  /** One page: `{object: 'list', data, has_more}`, starting after `params.starting_after` when given. */
  page(startingAfter?: string): Promise<List<T>> {
    const query = { ...(this.params as unknown as Query), ...(startingAfter === undefined ? {} : { starting_after: startingAfter }) };
    return this.http.request<List<T>>({ method: 'GET', path: this.path, query }, this.options);
  }

  /** Every page in turn, each fetched when the previous one is used up. */
  async *pages(): AsyncGenerator<List<T>, void, undefined> {
    let cursor: string | undefined = this.params.starting_after;
    for (;;) {
      const page = await this.page(cursor);
      yield page;
      const last = page.data[page.data.length - 1];
      if (!page.has_more || last === undefined) return;
      cursor = last.id;
    }
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<T, void, undefined> {
    for await (const page of this.pages()) yield* page.data;
  }

  /** Every object of the list, up to `max` (default 10 000): a guard against unbounded memory. */
  async toArray(max = LIST_TO_ARRAY_MAX_DEFAULT): Promise<T[]> {
    const all: T[] = [];
    for await (const item of this) {
      if (all.length >= max) break;
      all.push(item);
    }
    return all;
  }
}
