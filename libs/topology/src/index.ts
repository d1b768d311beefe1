export * from './distributed';
export * from './app-process';
