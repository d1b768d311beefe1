export * from './gateway.module';
export * from './gateway.config';
export type { GatewayConfig } from './gateway.core';
export { describeRoutes } from './openapi/document';
