import { context, propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Attributes, type Context, type Span } from '@opentelemetry/api';
import type { SpanExporter } from '@opentelemetry/sdk-trace-base';
import type { TracingConfig } from './tracing-config';
import type * as TracingSdk from './tracing-sdk';

export { SpanKind, type Attributes, type Span };
/** A trace context carried from one piece of work to another (parent or link). */
export type TraceContext = Context;

/** Set once tracing started in this process; while unset every helper below is a plain call (no cost when off). */
let running: TracingSdk.TracerSdk | undefined;

export const tracingActive = (): boolean => running !== undefined;

/**
 * Starts tracing for this process, once (later calls keep the first): to the collector of `target`, or
 * to an exporter of the caller's (tests). The SDK is loaded here and only here, so a process that does
 * not trace never loads it. The pg instrumentation was registered earlier (pg-tracing.ts) and reports
 * through this provider from now on.
 */
export function startTracing(serviceName: string, target: TracingConfig | { exporter: SpanExporter }): void {
  if (running) return;
  // A plain require, not import(): loaded on demand, and resolved like every other module by the workspace loaders.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const sdk = require('./tracing-sdk') as typeof TracingSdk;
  running = sdk.registerTracerSdk(serviceName, 'exporter' in target ? target.exporter : sdk.otlpExporter(target));
}

/** Exports the spans batched so far (tests read them). */
export const flushTracing = async (): Promise<void> => running?.flush();

/** Exports the spans still batched and stops tracing (at shutdown); the API is back to its no-op. */
export async function stopTracing(): Promise<void> {
  const stopping = running;
  running = undefined;
  if (!stopping) return;
  try {
    await stopping.shutdown();
  } finally {
    trace.disable();
    context.disable();
    propagation.disable();
  }
}

/**
 * The trace context to send with a request (`traceparent`, `tracestate`): `span`'s, or the active
 * span's; none when tracing is off.
 */
export function traceHeadersOf(span?: Span): Record<string, string> {
  if (!running) return {};
  const carrier: Record<string, string> = {};
  propagation.inject(span ? trace.setSpan(context.active(), span) : context.active(), carrier);
  return carrier;
}

/** The context a received request continues (its `traceparent`), or a new trace's when it has none. */
export function contextFromTraceHeaders(headers: Record<string, unknown> | undefined): Context {
  if (!running || !headers) return ROOT_CONTEXT;
  return propagation.extract(ROOT_CONTEXT, headers, {
    keys: (carrier) => Object.keys(carrier),
    get: (carrier, key) => {
      const value = carrier[key];
      return typeof value === 'string' || Array.isArray(value) ? (value as string | string[]) : undefined;
    },
  });
}

export interface SpanOptions {
  kind: SpanKind;
  attributes?: Attributes;
  /** The parent; the active context by default. */
  parent?: Context;
  /** Other work this span also serves (a batch's other callers): linked, not parents. */
  links?: readonly (Context | undefined)[];
}

/** The trace context of the work in hand, to parent or link later work on; undefined when tracing is off. */
export const currentTraceContext = (): TraceContext | undefined => (running ? context.active() : undefined);

/** A started span, or undefined when tracing is off: the caller ends it (endSpan) when its work is answered. */
export function beginSpan(name: string, { kind, attributes, parent, links }: SpanOptions): Span | undefined {
  if (!running) return undefined;
  const linked = (links ?? []).flatMap((linkedContext) => {
    const spanContext = linkedContext && trace.getSpanContext(linkedContext);
    return spanContext ? [{ context: spanContext }] : [];
  });
  return running.tracer.startSpan(name, { kind, ...(attributes ? { attributes } : {}), ...(linked.length > 0 ? { links: linked } : {}) }, parent ?? context.active());
}

/** Runs `work` with `span` as the active span (its pg queries and bus requests become its children). */
export const runInSpan = <T>(span: Span | undefined, work: () => T, parent: Context = context.active()): T =>
  span ? context.with(trace.setSpan(parent, span), work) : work();

/** Ends a span begun by beginSpan; `failed` marks it as an error (an answer the caller did not want: a 5xx, a timeout). */
export function endSpan(span: Span | undefined, { failed = false, attributes }: { failed?: boolean; attributes?: Attributes } = {}): void {
  if (!span) return;
  if (attributes) span.setAttributes(attributes);
  if (failed) span.setStatus({ code: SpanStatusCode.ERROR });
  span.end();
}

/**
 * `work` in a span of its own, active while it runs and ended when it settles (an exception marks it
 * failed, its type only: messages can carry what a span must not). Plain `work()` when tracing is off.
 */
export async function withSpan<T>(name: string, options: SpanOptions, work: (span: Span | undefined) => Promise<T>): Promise<T> {
  const span = beginSpan(name, options);
  if (!span) return work(undefined);
  try {
    const result = await runInSpan(span, () => work(span), options.parent);
    span.end();
    return result;
  } catch (error) {
    endSpan(span, { failed: true, attributes: { 'error.type': error instanceof Error ? error.name : 'unknown' } });
    throw error;
  }
}

/** Runs `work` outside any trace: background work a request merely wakes must not join the request's trace. */
export const runOutsideTrace = <T>(work: () => T): T => (running ? context.with(ROOT_CONTEXT, work) : work());
