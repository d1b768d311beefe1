import { Controller, Get, Param, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { GatewayCore } from '../gateway.core';

/**
 * The integrator fetches a collection's handover code for its recipient (the wholesaler, who hands the
 * cash over): `GET /v1/collections/{id}/handover_code`, with its API key. Another integrator's
 * collection is not found.
 */
@Controller('v1/collections')
export class HandoverCodeController {
  constructor(private readonly gateway: GatewayCore) {}

  @Get(':id/handover_code')
  async handoverCode(@Req() request: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply, @Param('id') collectionId: string) {
    const { integratorId } = await this.gateway.authenticate(request, reply);
    const collection = await this.gateway.bus.request('collections.retrieve', { integratorId, collectionId });
    void reply.header('Cache-Control', 'no-store');
    return { object: 'handover_code', collection: collection.id, code: await this.gateway.handoverCodes.codeOf(collection.id) };
  }
}
