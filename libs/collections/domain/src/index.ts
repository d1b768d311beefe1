import type { Decider } from '@pay/kernel';
import { decide, type CollectionCommand } from './collection.decide';
import { evolve, initialCollection, type Collection, type CollectionEvent } from './collection';

export * from './collection';
export * from './collection.decide';
export * from './collection.resource';

export const collectionDecider: Decider<CollectionCommand, CollectionEvent, Collection> = { decide, evolve, initialState: initialCollection };

export const collectionStreamId = (collectionId: string): string => `collection-${collectionId}`;
export * from './expected-movements';
