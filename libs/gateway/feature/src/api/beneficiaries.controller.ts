import { Controller } from '@nestjs/common';
import { GatewayCore } from '../gateway.core';

/** GET /v1/beneficiaries/{id}?payer_connection= (the supplier payments issue fills it). */
@Controller('v1/beneficiaries')
export class BeneficiariesController {
  constructor(private readonly gateway: GatewayCore) {}
}
