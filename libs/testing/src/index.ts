export * from './database';
export * from './given-when-then';
