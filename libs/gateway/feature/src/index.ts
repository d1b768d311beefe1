export * from './gateway.module';
export * from './gateway.config';
export { describeRoutes } from './openapi/document';
export { startNotice } from './start-notice';
