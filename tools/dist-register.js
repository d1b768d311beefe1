// Runs a built app: resolves the @pay/* aliases to the compiled libraries under dist/.
const { join } = require('node:path');
const { compilerOptions } = require('../tsconfig.base.json');
const paths = Object.fromEntries(Object.entries(compilerOptions.paths).map(([alias, [target]]) => [alias, [target.replace(/\.ts$/, '')]]));
require('tsconfig-paths').register({ baseUrl: join(__dirname, '..', 'dist'), paths });
// Traces of PostgreSQL queries: instrumented before anything requires pg (see tools/register.js).
if (process.env.OTEL_EXPORTER_OTLP_ENDPOINT || process.env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) {
  require('../dist/libs/observability/src/pg-tracing').instrumentPgWhenTracing();
}
