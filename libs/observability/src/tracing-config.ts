import { OTEL_SDK_SETTING_MAX, type EnvReader } from '@pay/kernel';

/** Where traces go: OTLP over HTTP (JSON), to a collector (OpenTelemetry Collector, Jaeger, Tempo, …). */
export interface TracingConfig {
  /** The full URL spans are POSTed to (`<OTEL_EXPORTER_OTLP_ENDPOINT>/v1/traces`, or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT as is). */
  tracesUrl: string;
}

export const OTLP_ENDPOINT_VARIABLE = 'OTEL_EXPORTER_OTLP_ENDPOINT';
const TRACES_ENDPOINT_VARIABLE = 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT';
/** The exporter installed speaks OTLP/HTTP with JSON bodies; another protocol asked for would be silently ignored. */
const SUPPORTED_PROTOCOL = 'http/json';
const SAMPLERS = ['always_on', 'always_off', 'traceidratio', 'parentbased_always_on', 'parentbased_always_off', 'parentbased_traceidratio'];
/** Read by the SDK itself (batch processor, exporter); checked here so that a typo is an error, not a silent default. */
const SDK_MILLISECOND_AND_SIZE_VARIABLES = [
  'OTEL_BSP_SCHEDULE_DELAY',
  'OTEL_BSP_EXPORT_TIMEOUT',
  'OTEL_BSP_MAX_QUEUE_SIZE',
  'OTEL_BSP_MAX_EXPORT_BATCH_SIZE',
  'OTEL_EXPORTER_OTLP_TIMEOUT',
  'OTEL_EXPORTER_OTLP_TRACES_TIMEOUT',
];

/**
 * Tracing is on when an OTLP endpoint is set (and OTEL_SDK_DISABLED is not true); off otherwise, and
 * then nothing at all is registered. Every OTEL_* value the process would act on is checked here, with
 * the other settings, so a bad one stops the start (exit 2) instead of dropping spans silently.
 */
export function readTracingConfig(read: EnvReader): TracingConfig | undefined {
  const endpoint = read.url(OTLP_ENDPOINT_VARIABLE, undefined, ['http:', 'https:']);
  // The signal-specific URL is used as is (OpenTelemetry's specification); the general one gets /v1/traces.
  const tracesEndpoint = read.url(TRACES_ENDPOINT_VARIABLE, undefined, ['http:', 'https:']);
  const disabled = read.bool('OTEL_SDK_DISABLED', false);
  for (const name of ['OTEL_EXPORTER_OTLP_PROTOCOL', 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL']) {
    const protocol = read.string(name);
    if (protocol !== undefined && protocol !== SUPPORTED_PROTOCOL) read.problems.push(`${name} must be ${SUPPORTED_PROTOCOL} (traces are exported as OTLP/HTTP JSON), got "${protocol}"`);
  }
  for (const name of ['OTEL_EXPORTER_OTLP_HEADERS', 'OTEL_EXPORTER_OTLP_TRACES_HEADERS']) {
    const headers = read.string(name);
    // Often a collector's credential: the value is never echoed.
    if (headers !== undefined && !headers.split(',').every((pair) => /^\s*[^=\s]+\s*=.+$/.test(pair))) read.problems.push(`${name} must be key=value[,key=value…]`);
  }
  for (const name of SDK_MILLISECOND_AND_SIZE_VARIABLES) read.int(name, 0, { min: 1, max: OTEL_SDK_SETTING_MAX });
  const sampler = read.string('OTEL_TRACES_SAMPLER');
  if (sampler !== undefined && !SAMPLERS.includes(sampler)) read.problems.push(`OTEL_TRACES_SAMPLER must be one of ${SAMPLERS.join(', ')}, got "${sampler}"`);
  const ratio = read.string('OTEL_TRACES_SAMPLER_ARG');
  if (ratio !== undefined && !(/^(0(\.\d+)?|1(\.0+)?)$/.test(ratio))) read.problems.push(`OTEL_TRACES_SAMPLER_ARG must be a ratio from 0 to 1, got "${ratio}"`);
  if (disabled) return undefined;
  if (tracesEndpoint !== undefined) return { tracesUrl: tracesEndpoint };
  return endpoint === undefined ? undefined : { tracesUrl: `${endpoint}/v1/traces` };
}

/**
 * Whether this process will trace, from the environment alone: for what must be decided before the
 * configuration is read (instrumenting `pg` before it is first required). A bad value is reported later
 * by readTracingConfig, and the process does not start.
 */
export const tracingRequested = (env: NodeJS.ProcessEnv): boolean =>
  !!(env[OTLP_ENDPOINT_VARIABLE] || env[TRACES_ENDPOINT_VARIABLE]) && env['OTEL_SDK_DISABLED'] !== 'true' && env['OTEL_SDK_DISABLED'] !== '1';
