export * from './log-context';
export * from './logger';
export * from './metrics';
export { REDACTED, REDACTED_PATHS, scrubSecrets } from './redaction';
export * from './tracing';
export { readTracingConfig, type TracingConfig } from './tracing-config';
