export * from './host-config';
export * from './infrastructure';
export * from './nest-host';
export * from './run-main';
export * from './health';
export { configureHttp, fastifyOptions } from './http-setup';
