import type { ApplyDeadlines, DeadlinesApplied } from './messages';

/** The collections app: marketplace cash reconciliation (collection, deposit, settlement). */

export interface CollectionsTopics {
  'collections.apply-deadlines': { request: ApplyDeadlines; reply: DeadlinesApplied };
}

export const COLLECTIONS_TOPICS = ['collections.apply-deadlines'] as const satisfies readonly (keyof CollectionsTopics)[];
