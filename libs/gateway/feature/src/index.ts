export * from './gateway.module';
export * from './gateway.config';
export { buildOpenApiDocument, describeRoutes } from './openapi/document';
export { startNotice } from './start-notice';
export { FULL_ACCESS, REQUIRED_SCOPE, RequiresScope, SCOPE_RESOURCES, scopeFor, type RouteScope, type ScopeResource } from './auth/scopes';
export { AUDITED_ACTION, Audited } from './audit/audited';
