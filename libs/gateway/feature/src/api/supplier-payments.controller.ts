import { Controller } from '@nestjs/common';
import { GatewayCore } from '../gateway.core';

/** The supplier_payments API (its use-case issue fills it). */
@Controller('v1/supplier_payments')
export class SupplierPaymentsController {
  constructor(private readonly gateway: GatewayCore) {}
}

/** Sandbox test helpers of supplier_payments: registered only when SANDBOX=true. */
@Controller('v1/test_helpers/supplier_payments')
export class SupplierPaymentsTestHelpersController {
  constructor(private readonly gateway: GatewayCore) {}
}
