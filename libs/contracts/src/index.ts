export * from './errors';
export * from './resources';
export * from './messages';
export * from './events';
