// Runs the TypeScript sources directly: swc transpiles (with decorator metadata, which Nest's
// dependency injection reads) and tsconfig-paths resolves the @pay/* aliases to the libraries' sources.
const { join } = require('node:path');
const project = join(__dirname, '..', 'tsconfig.base.json');
process.env.SWC_NODE_PROJECT = process.env.SWC_NODE_PROJECT || project;
require('@swc-node/register');
const { compilerOptions } = require(project);
require('tsconfig-paths').register({ baseUrl: join(__dirname, '..'), paths: compilerOptions.paths });
