export * from './log-context';
export * from './logger';
export * from './metrics';
export { maskSecretFields, REDACTED, scrubSecrets } from './redaction';
export * from './tracing';
export { readTracingConfig, type TracingConfig } from './tracing-config';
