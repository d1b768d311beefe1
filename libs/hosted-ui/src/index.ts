export * from './languages';
export * from './i18n';
export * from './format';
export * from './brand';
export * from './views';
export * from './amounts';
