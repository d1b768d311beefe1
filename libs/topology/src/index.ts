export * from './distributed';
export * from './app-process';
export * from './port-file';
