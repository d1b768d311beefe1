import { Inject, Injectable } from '@nestjs/common';
import { MESSAGE_BUS, type MessageBus } from '@pay/bus';
import { ServiceError, type CarrierQueue, type CashPointResource, type CashPaymentResource, type CollectionResource } from '@pay/contracts';
import { AGENT_DEPOSITS_READ_MAX, ID_LENGTH_MAX } from '@pay/kernel';
import type { Agent } from '../../directory/people.repository';
import { notFoundAsUndefined, refusalCode } from '../forms';
import { AGENT_ERRORS } from './agent-views';

const COLLECTION_ID = new RegExp(`^col_[A-Za-z0-9]{1,${ID_LENGTH_MAX}}$`);

/** What the agents' pages read over the bus (any integrator's objects: an agent serves them all), and their commands. */
@Injectable()
export class AgentReads {
  constructor(@Inject(MESSAGE_BUS) private readonly bus: MessageBus) {}

  cashPayment(cashPaymentId: string): Promise<CashPaymentResource | undefined> {
    return notFoundAsUndefined(() => this.bus.request('cash.cash-payments.retrieve', { integratorId: null, cashPaymentId }));
  }

  async collection(collectionId: string): Promise<CollectionResource | undefined> {
    if (!COLLECTION_ID.test(collectionId)) return undefined;
    return notFoundAsUndefined(() => this.bus.request('collections.retrieve', { integratorId: null, collectionId }));
  }

  /** The cash point (where a carrier deposits), or undefined when it cannot be read. */
  cashPoint(cashPointId: string): Promise<CashPointResource | undefined> {
    return this.bus.request('cash.cash-points.retrieve', { cashPointId }).catch(() => undefined);
  }

  /** The collections collected and waiting to be deposited at this cash point, the most urgent first. */
  expectedDeposits(cashPointId: string): Promise<CollectionResource[]> {
    return this.bus.request('collections.expected-deposits', { cashPoint: cashPointId, limit: AGENT_DEPOSITS_READ_MAX });
  }

  /** A carrier's pickups waiting (oldest first) and the cash they hold to deposit (most urgent first). */
  carrierQueue(agentId: string): Promise<CarrierQueue> {
    return this.bus.request('collections.carrier-queue', { carrier: agentId, limit: AGENT_DEPOSITS_READ_MAX });
  }

  /** The cash point's name, or its id when it cannot be read. */
  async cashPointName(cashPointId: string): Promise<string> {
    try {
      return (await this.bus.request('cash.cash-points.retrieve', { cashPointId })).name;
    } catch {
      return cashPointId;
    }
  }
}

/** Runs a command; on a refusal, back to the page with the reason. */
export const runCommand = async (back: string, command: () => Promise<unknown>): Promise<string> => {
  try {
    await command();
    return back;
  } catch (error) {
    // Done already (a second post of a double tap) or closed meanwhile: the page's status says which.
    if (error instanceof ServiceError && error.code === 'invalid_status') return back;
    return `${back}?error=${refusalCode(error, AGENT_ERRORS)}`;
  }
};

/** Why this agent may not validate this collection's deposit, if so. */
export const depositRefusal = (collection: CollectionResource, agent: Agent): string | undefined =>
  collection.deposit === null ? 'not_collected' : collection.deposit.point !== agent.cashPoint ? 'not_your_point' : undefined;
