import { trace, type Tracer } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, type SpanExporter } from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { ATTR_SERVICE_NAME } from '@opentelemetry/semantic-conventions';
import { SPAN_ATTRIBUTE_LENGTH_MAX } from '@pay/kernel';
import type { TracingConfig } from './tracing-config';

/** Names our own spans' instrumentation scope (pg's spans carry the pg instrumentation's). */
const TRACER_NAME = '@pay/observability';

export interface TracerSdk {
  tracer: Tracer;
  /** Exports what is batched now. */
  flush(): Promise<void>;
  /** Exports what is still batched, then stops. */
  shutdown(): Promise<void>;
}

/**
 * The SDK for this process (loaded only when tracing is on): spans with `service.name` = the app,
 * batched to the exporter, W3C trace context as the propagator, and AsyncLocalStorage carrying the
 * active span (NodeTracerProvider's default context manager).
 */
export function registerTracerSdk(serviceName: string, exporter: SpanExporter): TracerSdk {
  const provider = new NodeTracerProvider({
    resource: resourceFromAttributes({ [ATTR_SERVICE_NAME]: serviceName }),
    spanProcessors: [new BatchSpanProcessor(exporter)],
    spanLimits: { attributeValueLengthLimit: SPAN_ATTRIBUTE_LENGTH_MAX },
  });
  provider.register({ propagator: new W3CTraceContextPropagator() });
  return { tracer: trace.getTracer(TRACER_NAME), flush: () => provider.forceFlush(), shutdown: () => provider.shutdown() };
}

/** OTLP over HTTP with JSON bodies, to the configured collector. */
export const otlpExporter = (config: TracingConfig): SpanExporter => new OTLPTraceExporter({ url: config.tracesUrl });
