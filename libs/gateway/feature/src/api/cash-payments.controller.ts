import { Controller } from '@nestjs/common';
import { GatewayCore } from '../gateway.core';

/** The cash_payments API (its use-case issue fills it). */
@Controller('v1/cash_payments')
export class CashPaymentsController {
  constructor(private readonly gateway: GatewayCore) {}
}

/** Sandbox test helpers of cash_payments: registered only when SANDBOX=true. */
@Controller('v1/test_helpers/cash_payments')
export class CashPaymentsTestHelpersController {
  constructor(private readonly gateway: GatewayCore) {}
}
