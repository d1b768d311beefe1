// Runs the TypeScript sources directly: swc transpiles (with decorator metadata, which Nest's
// dependency injection reads) and tsconfig-paths resolves the @pay/* aliases to the libraries' sources.
const { join } = require('node:path');
const project = join(__dirname, '..', 'tsconfig.base.json');
process.env.SWC_NODE_PROJECT = process.env.SWC_NODE_PROJECT || project;
require('@swc-node/register');
const { compilerOptions } = require(project);
require('tsconfig-paths').register({ baseUrl: join(__dirname, '..'), paths: compilerOptions.paths });
// Traces of PostgreSQL queries: pg must be instrumented before anything requires it, and an app's main
// requires pg through its first import (@pay/runtime), so here, the first code of every process that
// runs the sources. Nothing is loaded when no OTLP endpoint is set (tracing off).
if (process.env.OTEL_EXPORTER_OTLP_ENDPOINT || process.env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) {
  require('../libs/observability/src/pg-tracing').instrumentPgWhenTracing();
}
