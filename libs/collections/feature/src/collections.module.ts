import { Inject, Injectable, Module, type DynamicModule, type OnModuleInit } from '@nestjs/common';
import { MESSAGE_BUS, type MessageBus } from '@pay/bus';
import type { OffsetClock } from '@pay/kernel';
import { CLOCK, type MigrationSet } from '@pay/platform';

/** The collections app's schemas (none yet: the marketplace cash reconciliation issue adds them). */
export const COLLECTIONS_MIGRATIONS: readonly MigrationSet[] = [];

export interface CollectionsConfig {
  publicBaseUrl: string;
}
const COLLECTIONS_CONFIG = Symbol('CollectionsConfig');

/** The collections app: marketplace cash reconciliation (collections, deposits, settlements). */
@Injectable()
class CollectionsRuntime implements OnModuleInit {
  constructor(
    @Inject(MESSAGE_BUS) private readonly bus: MessageBus,
    @Inject(CLOCK) private readonly clock: OffsetClock,
    @Inject(COLLECTIONS_CONFIG) readonly config: CollectionsConfig,
  ) {}

  onModuleInit(): void {
    this.bus.handle('collections.apply-deadlines', async ({ clockOffsetMs }) => {
      this.clock.observeOffset(clockOffsetMs);
      return { applied: 0 };
    });
  }
}

@Module({})
export class CollectionsModule {
  static forRoot(config: CollectionsConfig): DynamicModule {
    return { module: CollectionsModule, providers: [{ provide: COLLECTIONS_CONFIG, useValue: config }, CollectionsRuntime] };
  }
}
