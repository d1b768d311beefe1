import { decide, type CollectionCommand } from './collection.decide';
import { evolve, initialCollection, type Collection, type CollectionEvent } from './collection';

export * from './collection';
export * from './collection.decide';
export * from './collection.resource';

export const collectionDecider = { decide, evolve, initialState: initialCollection } satisfies {
  decide(command: CollectionCommand, state: Collection): CollectionEvent[];
  evolve(state: Collection, event: CollectionEvent): Collection;
  initialState: Collection;
};

export const collectionStreamId = (collectionId: string): string => `collection-${collectionId}`;
export * from './expected-movements';
