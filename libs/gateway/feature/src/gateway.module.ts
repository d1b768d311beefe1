import { Module, type DynamicModule } from '@nestjs/common';
import { join } from 'node:path';
import type { MigrationSet } from '@pay/platform';
import { AdminController } from './admin/admin.controller';
import { HostedController } from './api/hosted.controller';
import { PaymentsController } from './api/payments.controller';
import { TestHelpersController } from './api/test-helpers.controller';
import { EventsController, WebhookEndpointsController } from './api/webhooks.controller';
import { GATEWAY_CONFIG, GatewayCore, type GatewayConfig } from './gateway.core';

export const GATEWAY_MIGRATIONS: MigrationSet = { name: 'gateway', dir: join(__dirname, '..', 'migrations') };

@Module({})
export class GatewayModule {
  static forRoot(config: GatewayConfig): DynamicModule {
    return {
      module: GatewayModule,
      controllers: [
        PaymentsController,
        WebhookEndpointsController,
        EventsController,
        HostedController,
        AdminController,
        ...(config.sandbox ? [TestHelpersController] : [])],
      providers: [{ provide: GATEWAY_CONFIG, useValue: config }, GatewayCore],
    };
  }
}
