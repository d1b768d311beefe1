import { Controller, Get, Inject, Param, Res, UseGuards } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { MESSAGE_BUS, type MessageBus } from '@pay/bus';
import { HandoverCodeResource } from '@pay/contracts';
import { ApiKeyGuard, Integrator } from '../auth/api-key.guard';
import { RequiresScope } from '../auth/scopes';
import type { ApiKeyRecord } from '../directory/directory.repository';
import { Returns } from '../openapi/describe';
import { HandoverCodes } from './stores/handover-codes';

/**
 * The integrator fetches a collection's handover code for its recipient (the wholesaler, who hands the
 * cash over): `GET /v1/collections/{id}/handover_code`, with its API key. Another integrator's
 * collection is not found.
 */
@Controller('v1/collections')
@UseGuards(ApiKeyGuard)
@RequiresScope('collections')
export class HandoverCodeController {
  constructor(
    @Inject(MESSAGE_BUS) private readonly bus: MessageBus,
    private readonly handoverCodes: HandoverCodes,
  ) {}

  @Returns(HandoverCodeResource, 'Retrieve a collection’s handover code', { description: 'The code the wholesaler gives the carrier when handing the cash over; another integrator’s collection is not found.' })
  @Get(':id/handover_code')
  async handoverCode(@Integrator() { integratorId }: ApiKeyRecord, @Res({ passthrough: true }) reply: FastifyReply, @Param('id') collectionId: string): Promise<HandoverCodeResource> {
    const collection = await this.bus.request('collections.retrieve', { integratorId, collectionId });
    void reply.header('Cache-Control', 'no-store');
    return { object: 'handover_code', collection: collection.id, code: await this.handoverCodes.codeOf(collection.id) };
  }
}
