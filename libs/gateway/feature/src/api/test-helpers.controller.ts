import { Body, Controller, Get, HttpCode, Inject, Param, Post, UseGuards } from '@nestjs/common';
import { IsDefined, IsInt, IsNotEmpty, IsString, Max, MaxLength, Min } from 'class-validator';
import { MESSAGE_BUS, type MessageBus } from '@pay/bus';
import { ClockResource, DEADLINE_TOPICS, PaymentResource, ServiceError } from '@pay/contracts';
import { CLOCK_ADVANCE_REQUEST_TIMEOUT_MS, CLOCK_ADVANCE_SECONDS_MAX, iso, SERVICE_CLOCK_FOLLOW_MS, STRING_LENGTH_MAX, type OffsetClock } from '@pay/kernel';
import { CLOCK, ServiceClockStore } from '@pay/platform';
import { ApiKeyGuard, Integrator } from '../auth/api-key.guard';
import { FULL_ACCESS, RequiresScope } from '../auth/scopes';
import { DirectoryRepository, type ApiKeyRecord } from '../directory/directory.repository';
import { requireEmptyBody, validateBody } from '../http/validation';
import { JsonBody, Returns } from '../openapi/describe';
import { authorizeWith } from './authorize';

class AuthorizeBody {
  @IsDefined() @IsString() @IsNotEmpty() @MaxLength(STRING_LENGTH_MAX) customer!: string;
}

class AdvanceBody {
  @IsDefined() @IsInt() @Min(1) @Max(CLOCK_ADVANCE_SECONDS_MAX) seconds!: number;
}

/**
 * Sandbox test helpers (contract section 8): they run the same commands as the hosted pages and the
 * agents' applications do in live mode. Registered only when SANDBOX=true; otherwise these routes 404.
 */
@Controller('v1/test_helpers')
@UseGuards(ApiKeyGuard)
@RequiresScope('payments')
export class TestHelpersController {
  constructor(
    @Inject(MESSAGE_BUS) private readonly bus: MessageBus,
    @Inject(CLOCK) private readonly serviceClock: OffsetClock,
    private readonly clockStore: ServiceClockStore,
    private readonly directory: DirectoryRepository,
  ) {
    this.authorizePayment = authorizeWith(bus);
  }

  /** Made once: batchingRequest's batches are shared per bus. */
  private readonly authorizePayment: ReturnType<typeof authorizeWith>;

  @Returns(PaymentResource, 'Authorize a payment as the customer (sandbox)', { description: 'The customer authorizes: `succeeded`, or `declined` with `insufficient_balance`.' })
  @JsonBody(AuthorizeBody)
  @Post('payments/:id/authorize')
  @HttpCode(200)
  async authorize(@Integrator() { integratorId }: ApiKeyRecord, @Param('id') paymentId: string, @Body() body: unknown): Promise<PaymentResource> {
    const input = validateBody(AuthorizeBody, body);
    const customer = await this.directory.findCustomer(input.customer);
    if (!customer) throw new ServiceError('invalid_request', `no such customer: '${input.customer}'`, 'customer');
    return this.authorizePayment({ integratorId, paymentId, customer });
  }

  @Returns(PaymentResource, 'Decline a payment as the customer (sandbox)')
  @Post('payments/:id/decline')
  @HttpCode(200)
  async decline(@Integrator() { integratorId }: ApiKeyRecord, @Param('id') paymentId: string, @Body() body: unknown): Promise<PaymentResource> {
    requireEmptyBody(body);
    return this.bus.request('payments.decline', { integratorId, paymentId });
  }

  @RequiresScope(FULL_ACCESS)
  @Returns(ClockResource, 'Read the service clock (sandbox)', { operationId: 'testHelpers.clock.retrieve' })
  @Get('clock')
  clock(): ClockResource {
    return { object: 'clock', now: iso(this.serviceClock.now()) };
  }

  /** Moves the service clock forward, then has every app apply the deadlines now passed, before answering. */
  @RequiresScope(FULL_ACCESS)
  @Returns(ClockResource, 'Advance the service clock (sandbox)', { description: 'Moves the service clock forward; every deadline now passed (expiries, due webhook retries) is applied before the answer.' })
  @JsonBody(AdvanceBody)
  @Post('clock/advance')
  @HttpCode(200)
  async advance(@Body() body: unknown): Promise<ClockResource> {
    const { seconds } = validateBody(AdvanceBody, body);
    const clockOffsetMs = await this.clockStore.advance(this.serviceClock, seconds);
    for (const topic of DEADLINE_TOPICS) await this.bus.request(topic, { clockOffsetMs }, { timeoutMs: CLOCK_ADVANCE_REQUEST_TIMEOUT_MS });
    // Every app stored the offset; each other instance (of an app, or a gateway) reads it within a
    // refresh: the next request sees the new time whichever instance serves it.
    await new Promise((resolve) => setTimeout(resolve, SERVICE_CLOCK_FOLLOW_MS));
    return { object: 'clock', now: iso(this.serviceClock.now()) };
  }
}
