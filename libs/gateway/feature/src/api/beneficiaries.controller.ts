import { Controller, Get, Inject, Param, Query, UseGuards } from '@nestjs/common';
import { IsDefined, IsNotEmpty, IsString, MaxLength } from 'class-validator';
import { MESSAGE_BUS, type MessageBus } from '@pay/bus';
import { BeneficiaryResource } from '@pay/contracts';
import { STRING_LENGTH_MAX } from '@pay/kernel';
import { ApiKeyGuard, Integrator } from '../auth/api-key.guard';
import { RequiresScope } from '../auth/scopes';
import { ConnectionAuthorization } from '../directory/connection-authorization';
import type { ApiKeyRecord } from '../directory/directory.repository';
import { validateQuery } from '../http/validation';
import { QueryParams, Returns } from '../openapi/describe';

class BeneficiaryQuery {
  @IsDefined() @IsString() @IsNotEmpty() @MaxLength(STRING_LENGTH_MAX) payer_connection!: string;
}

/**
 * GET /v1/beneficiaries/{id}?payer_connection= (contract section 5): payer_connection is required and
 * must be the caller's; a beneficiary of another business is not found; a revoked one is still shown.
 */
@Controller('v1/beneficiaries')
@UseGuards(ApiKeyGuard)
@RequiresScope('beneficiaries')
export class BeneficiariesController {
  constructor(
    @Inject(MESSAGE_BUS) private readonly bus: MessageBus,
    private readonly connections: ConnectionAuthorization,
  ) {}

  @Returns(BeneficiaryResource, 'Retrieve a beneficiary', { description: 'A beneficiary of the business `payer_connection` (one of yours); a revoked one is still retrievable, with `status: "revoked"`.' })
  @QueryParams('payer_connection!')
  @Get(':id')
  async retrieve(@Integrator() { integratorId }: ApiKeyRecord, @Param('id') beneficiaryId: string, @Query() query: unknown): Promise<BeneficiaryResource> {
    const input = validateQuery(BeneficiaryQuery, query);
    const payer = await this.connections.authorized(integratorId, input.payer_connection, 'payer_connection');
    return this.bus.request('supplier-payments.beneficiaries.retrieve', { beneficiaryId, business: payer.id });
  }
}
