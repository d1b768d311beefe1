import { Module, type DynamicModule } from '@nestjs/common';
import { join } from 'node:path';
import { contextRuntime } from '@pay/event-store';
import type { MigrationSet } from '@pay/platform';
import { collectionsContext } from './collections.context';
import type { CollectionsConfig } from './collections.service';

/** The collections app's schemas: its read model (collection_views). */
export const COLLECTIONS_MIGRATIONS: readonly MigrationSet[] = [{ name: 'collections', dir: join(__dirname, '..', 'migrations') }];

@Module({})
export class CollectionsModule {
  static forRoot(config: CollectionsConfig): DynamicModule {
    return { module: CollectionsModule, providers: [contextRuntime((infra) => collectionsContext(infra, config))] };
  }
}
