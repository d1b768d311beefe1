import { Inject, Injectable, ServiceUnavailableException } from '@nestjs/common';
import { HealthCheckService, HealthIndicatorService, type HealthCheckResult, type HealthIndicatorResult } from '@nestjs/terminus';
import type { MessageBus } from '@pay/bus';
import { ServiceError } from '@pay/contracts';
import { READY_CHECK_TIMEOUT_MS, READY_MAX_SUBSCRIPTION_LAG_SECONDS } from '@pay/kernel';
import { EventStoreDBEventStore, type EventStore } from '@pay/event-store';
import { currentSubscriptionLags, type SubscriptionLag } from '@pay/observability';
import type { Pool } from 'pg';


/**
 * One dependency's check: resolves to undefined when it is up, or to what is wrong (a clause of
 * /ready's 503 message). Plain functions, so a test can stand in for a dependency without one running.
 */
export interface ReadinessProbe {
  /** The key in /ready's `checks`. */
  name: string;
  check(): Promise<string | undefined>;
}

export const READINESS_PROBES = Symbol('ReadinessProbes');

export const postgresProbe = (pool: Pick<Pool, 'query'>): ReadinessProbe => ({
  name: 'postgres',
  check: () => answersInTime(() => pool.query('SELECT 1'), 'PostgreSQL'),
});

/** The bus says from its own state (no round trip): see MessageBus.isReady. */
export const busProbe = (bus: Pick<MessageBus, 'isReady'>): ReadinessProbe => ({
  name: 'bus',
  check: async () => {
    const readiness = bus.isReady();
    return readiness.ready ? undefined : `the bus is not ready: ${readiness.reason}`;
  },
});

export const eventStoreDbProbe = (store: Pick<EventStoreDBEventStore, 'ping'>): ReadinessProbe => ({
  name: 'eventstore',
  check: () => answersInTime(() => store.ping(READY_CHECK_TIMEOUT_MS), 'EventStoreDB'),
});

export const subscriptionLagProbe = (lags: () => SubscriptionLag[] = currentSubscriptionLags, maxLagSeconds = READY_MAX_SUBSCRIPTION_LAG_SECONDS): ReadinessProbe => ({
  name: 'subscriptions',
  check: async () => {
    const behind = lags().filter((lag) => lag.lagSeconds > maxLagSeconds);
    return behind.length === 0 ? undefined : behind.map((lag) => `subscription ${lag.subscription} is ${Math.round(lag.lagSeconds)} s behind`).join('; ');
  },
});

/** A host's probes: PostgreSQL, the bus, EventStoreDB when the aggregates live there (EVENTSTORE_URL), the subscriptions' lag. */
export function hostProbes(pool: Pool, bus: MessageBus, store: EventStore): ReadinessProbe[] {
  return [postgresProbe(pool), busProbe(bus), ...(store instanceof EventStoreDBEventStore ? [eventStoreDbProbe(store)] : []), subscriptionLagProbe()];
}

export interface ReadyBody {
  status: 'ok';
  checks: Record<string, 'up'>;
}

/**
 * Runs every probe through terminus (at once, each bounded) and answers in the service's shapes: the
 * checks that are up, or a ServiceError service_unavailable naming every part that is not (the error
 * filter adds Request-Id). Terminus answers 503 too once the application is shutting down.
 */
@Injectable()
export class Readiness {
  constructor(
    private readonly health: HealthCheckService,
    private readonly indicators: HealthIndicatorService,
    @Inject(READINESS_PROBES) private readonly probes: readonly ReadinessProbe[],
  ) {}

  async check(): Promise<ReadyBody> {
    try {
      await this.health.check(this.probes.map((probe) => () => this.indicate(probe)));
    } catch (error) {
      if (!(error instanceof ServiceUnavailableException)) throw error;
      throw new ServiceError('service_unavailable', `not ready: ${this.failures(error.getResponse() as HealthCheckResult)}`);
    }
    return { status: 'ok', checks: Object.fromEntries(this.probes.map((probe) => [probe.name, 'up' as const])) };
  }

  private async indicate(probe: ReadinessProbe): Promise<HealthIndicatorResult> {
    const session = this.indicators.check(probe.name);
    // A probe that throws is a bug in it, not an outage: still down, said without its details.
    const problem = await probe.check().catch(() => `the ${probe.name} check failed`);
    return problem === undefined ? session.up() : session.down({ message: problem });
  }

  /** The failing parts in the probes' order. */
  private failures(result: HealthCheckResult): string {
    const messages = this.probes.map((probe) => result.error?.[probe.name]?.['message']).filter((message): message is string => typeof message === 'string');
    if (messages.length > 0) return messages.join('; ');
    return result.status === 'shutting_down' ? 'shutting down' : 'a check failed';
  }
}

/** `work` answered within READY_CHECK_TIMEOUT_MS: undefined; else what is wrong. A late answer is left to settle unobserved. */
async function answersInTime(work: () => Promise<unknown>, what: string): Promise<string | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), READY_CHECK_TIMEOUT_MS)));
  try {
    const outcome = await Promise.race([work().then(() => 'answered' as const), late]);
    return outcome === 'late' ? `${what} did not answer within ${READY_CHECK_TIMEOUT_MS} ms` : undefined;
  } catch {
    return `${what} is unreachable`;
  } finally {
    clearTimeout(timer);
  }
}
