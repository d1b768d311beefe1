import { registerInstrumentations } from '@opentelemetry/instrumentation';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import { tracingRequested } from './tracing-config';

let registered = false;

/**
 * Spans for PostgreSQL queries, when this process traces. The instrumentation patches `pg` as it is
 * required, so it must be registered before anything requires `pg`: the workspace loaders
 * (tools/register.js, tools/dist-register.js) call this first thing, since an app's main imports
 * @pay/runtime, which loads `pg` before any code of the main runs. The spans go through the global
 * tracer provider, a proxy until startTracing registers the real one once the configuration is read.
 *
 * - only queries inside a traced piece of work (an HTTP request, a bus message): the subscriptions'
 *   and sweeps' polls every fraction of a second would otherwise each start a trace;
 * - statements only, never their values (no enhanced reporting): values are PINs, keys' hashes, bodies;
 *   the connection string is reported without its user and password;
 * - no span per pool connect: a query's own span says what it cost, connecting is the pool's business.
 */
export function instrumentPgWhenTracing(env: NodeJS.ProcessEnv = process.env): void {
  if (registered || !tracingRequested(env)) return;
  registered = true;
  registerInstrumentations({ instrumentations: [new PgInstrumentation({ requireParentSpan: true, enhancedDatabaseReporting: false, ignoreConnectSpans: true })] });
}
