export * from './gateway.module';
export * from './gateway.config';
export { buildOpenApiDocument, describeRoutes } from './openapi/document';
