import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import type { INestApplicationContext } from '@nestjs/common';
import { ServiceError } from '@pay/contracts';
import { EventStoreDBEventStore } from '@pay/event-store';
import { HealthModule } from './health';
import { READY_CHECK_TIMEOUT_MS } from '@pay/kernel';
import { busProbe, eventStoreDbProbe, postgresProbe, READINESS_PROBES, Readiness, subscriptionLagProbe, type ReadinessProbe } from './readiness';

/**
 * The aggregation behind /ready, through the real health module and terminus: only what each probe
 * reads (the pool, the bus's state, the lags, an EventStoreDB client) is a stand-in.
 */
const upPool = { query: async () => ({ rows: [{ '?column?': 1 }] }) } as never;
const readyBus = { isReady: () => ({ ready: true as const }) };
const keepingUp = () => [{ subscription: 'payments-relay', lagSeconds: 1.2 }];

/** An EventStoreDB adapter over a client whose $all read answers one event, fails, or never answers. */
const eventStoreDb = (read: 'answers' | 'fails' | 'hangs') =>
  new EventStoreDBEventStore({
    readAll: () =>
      (async function* () {
        if (read === 'fails') throw new Error('14 UNAVAILABLE: No connection established');
        if (read === 'hangs') await new Promise(() => undefined);
        yield { event: undefined };
      })(),
  } as never);

describe('readiness', () => {
  const contexts: INestApplicationContext[] = [];
  afterAll(async () => {
    for (const context of contexts) await context.close();
  });

  const readiness = async (probes: ReadinessProbe[]): Promise<Readiness> => {
    const context = await NestFactory.createApplicationContext(HealthModule.withProbes({ provide: READINESS_PROBES, useValue: probes }), { logger: false });
    contexts.push(context);
    return context.get(Readiness);
  };

  const failure = (check: Promise<unknown>): Promise<ServiceError> =>
    check.then(
      () => {
        throw new Error('ready, expected not ready');
      },
      (error: unknown) => error as ServiceError,
    );

  it('lists every check when all are up', async () => {
    const ready = await readiness([postgresProbe(upPool), busProbe(readyBus), subscriptionLagProbe(keepingUp)]);
    await expect(ready.check()).resolves.toEqual({ status: 'ok', checks: { postgres: 'up', bus: 'up', subscriptions: 'up' } });
  });

  it('answers one service_unavailable naming every failing part: the bus and a subscription behind its bound', async () => {
    const bus = { isReady: () => ({ ready: false as const, reason: 'Kafka consumer group payments-server (requests) not joined' }) };
    const lags = () => [
      { subscription: 'payments-relay', lagSeconds: 120.4 },
      { subscription: 'payments-webhooks', lagSeconds: 3 },
    ];
    const ready = await readiness([postgresProbe(upPool), busProbe(bus), subscriptionLagProbe(lags, 60)]);

    const error = await failure(ready.check());
    expect(error).toBeInstanceOf(ServiceError);
    expect(error.code).toBe('service_unavailable');
    expect(error.message).toBe('not ready: the bus is not ready: Kafka consumer group payments-server (requests) not joined; subscription payments-relay is 120 s behind');
  });

  it('says PostgreSQL is unreachable when its query fails, and a probe that throws is down without its details', async () => {
    const downPool = { query: () => Promise.reject(new Error('connect ECONNREFUSED 10.0.0.5:5432')) } as never;
    const broken: ReadinessProbe = { name: 'broken', check: () => Promise.reject(new Error('bug')) };
    const ready = await readiness([postgresProbe(downPool), broken]);
    expect((await failure(ready.check())).message).toBe('not ready: PostgreSQL is unreachable; the broken check failed');
  });

  it('checks EventStoreDB with a bounded read of $all: up when it answers, down when it fails or is late', async () => {
    await expect((await readiness([eventStoreDbProbe(eventStoreDb('answers'))])).check()).resolves.toEqual({ status: 'ok', checks: { eventstore: 'up' } });
    expect((await failure((await readiness([eventStoreDbProbe(eventStoreDb('fails'))])).check())).message).toBe('not ready: EventStoreDB is unreachable');
    const started = Date.now();
    expect((await failure((await readiness([eventStoreDbProbe(eventStoreDb('hangs'))])).check())).message).toBe(
      `not ready: EventStoreDB did not answer within ${READY_CHECK_TIMEOUT_MS} ms`,
    );
    expect(Date.now() - started).toBeLessThan(READY_CHECK_TIMEOUT_MS + 1_000);
  });
});
