import { Controller, Get, Param, Query, Req, Res } from '@nestjs/common';
import { IsDefined, IsNotEmpty, IsString, MaxLength } from 'class-validator';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { BeneficiaryResource } from '@pay/contracts';
import { GatewayCore } from '../gateway.core';
import { validateQuery } from '../http/validation';
import { STRING_LENGTH_MAX } from './payments.controller';
import { QueryParams } from '../openapi/describe';

class BeneficiaryQuery {
  @IsDefined() @IsString() @IsNotEmpty() @MaxLength(STRING_LENGTH_MAX) payer_connection!: string;
}

/**
 * GET /v1/beneficiaries/{id}?payer_connection= (contract section 5): payer_connection is required and
 * must be the caller's; a beneficiary of another business is not found; a revoked one is still shown.
 */
@Controller('v1/beneficiaries')
export class BeneficiariesController {
  constructor(private readonly gateway: GatewayCore) {}

  @QueryParams('payer_connection!')
  @Get(':id')
  async retrieve(
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
    @Param('id') beneficiaryId: string,
    @Query() query: unknown,
  ): Promise<BeneficiaryResource> {
    const { integratorId } = await this.gateway.authenticate(request, reply);
    const input = validateQuery(BeneficiaryQuery, query);
    const payer = await this.gateway.authorizedConnection(integratorId, input.payer_connection, 'payer_connection');
    return this.gateway.bus.request('supplier-payments.beneficiaries.retrieve', { beneficiaryId, business: payer.id });
  }
}
