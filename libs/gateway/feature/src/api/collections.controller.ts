import { Controller } from '@nestjs/common';
import { GatewayCore } from '../gateway.core';

/** The collections API (its use-case issue fills it). */
@Controller('v1/collections')
export class CollectionsController {
  constructor(private readonly gateway: GatewayCore) {}
}

/** Sandbox test helpers of collections: registered only when SANDBOX=true. */
@Controller('v1/test_helpers/collections')
export class CollectionsTestHelpersController {
  constructor(private readonly gateway: GatewayCore) {}
}
