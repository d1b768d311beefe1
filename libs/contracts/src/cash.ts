import type { ApplyDeadlines, DeadlinesApplied } from './messages';
import type { ListResource } from './resources';

/** The cash app: cash checkout (cash payments) and the cash points where agents validate cash. */

export interface CashPointResource {
  id: string;
  object: 'cash_point';
  name: string;
  address: string;
  created_at: string;
}

export interface CreateCashPoint {
  cashPointId: string;
  name: string;
  address: string;
}

export interface CashTopics {
  'cash.cash-points.create': { request: CreateCashPoint; reply: CashPointResource };
  'cash.cash-points.list': { request: { limit: number }; reply: ListResource<CashPointResource> };
  'cash.apply-deadlines': { request: ApplyDeadlines; reply: DeadlinesApplied };
}

export const CASH_TOPICS = ['cash.cash-points.create', 'cash.cash-points.list', 'cash.apply-deadlines'] as const satisfies readonly (keyof CashTopics)[];
