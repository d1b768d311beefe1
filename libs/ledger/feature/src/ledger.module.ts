import { Inject, Injectable, Module, type DynamicModule, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { MESSAGE_BUS, type MessageBus } from '@pay/bus';
import { type Clock, type EnvReader } from '@pay/kernel';
import { DEFAULT_FEE_SCHEDULE, parseFeeSchedule, type FeeSchedule } from '@pay/ledger-domain';
import { CLOCK, PG_POOL } from '@pay/platform';
import { type Pool } from 'pg';
import { LedgerChain } from './chain.service';
import { registerLedgerHandlers } from './ledger.handlers';
import { LedgerService } from './ledger.service';
import { type LedgerSigningKey } from './signing-key';

/** Nest token of the FeeSchedule the host builds (DEFAULT_FEE_SCHEDULE, or parseFeeSchedule of FEE_SCHEDULE). */
export const FEE_SCHEDULE = Symbol('FeeSchedule');
/** Nest token of the key that signs the chain's head (readLedgerSigningKey). */
export const LEDGER_SIGNING_KEY = Symbol('LedgerSigningKey');

@Injectable()
class LedgerHandlersRegistrar implements OnModuleInit, OnModuleDestroy {
  private chain: LedgerChain | undefined;

  constructor(
    @Inject(PG_POOL) private readonly pool: Pool,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(MESSAGE_BUS) private readonly bus: MessageBus,
    @Inject(FEE_SCHEDULE) private readonly schedule: FeeSchedule,
    @Inject(LEDGER_SIGNING_KEY) private readonly signingKey: LedgerSigningKey,
  ) {}

  /** The chain's backlog (entries older than the chain) is sealed in the background: the ledger answers meanwhile. */
  async onModuleInit(): Promise<void> {
    this.chain = new LedgerChain(this.pool, this.clock, this.signingKey);
    await this.chain.start();
    registerLedgerHandlers(this.bus, new LedgerService(this.pool, this.clock, this.schedule), this.chain);
  }

  async onModuleDestroy(): Promise<void> {
    await this.chain?.stop();
  }
}

/** The ledger app: answers the `ledger.*` topics. The host provides PG_POOL, CLOCK and MESSAGE_BUS. */
@Module({})
export class LedgerModule {
  static forRoot({ feeSchedule, signingKey }: { feeSchedule: FeeSchedule; signingKey: LedgerSigningKey }): DynamicModule {
    return {
      module: LedgerModule,
      providers: [{ provide: FEE_SCHEDULE, useValue: feeSchedule }, { provide: LEDGER_SIGNING_KEY, useValue: signingKey }, LedgerHandlersRegistrar],
    };
  }
}

/** FEE_SCHEDULE: JSON overriding any part of the default schedule; a bad one is a configuration problem. */
export function readFeeSchedule(read: EnvReader): FeeSchedule {
  let schedule = DEFAULT_FEE_SCHEDULE;
  read.json<unknown>('FEE_SCHEDULE', undefined, (value) => {
    const parsed = parseFeeSchedule(value);
    if (typeof parsed === 'string') return parsed;
    schedule = parsed;
    return undefined;
  });
  return schedule;
}
