import { EnvReader } from '@pay/kernel';
import { readTracingConfig } from './tracing-config';

const read = (env: NodeJS.ProcessEnv) => {
  const reader = new EnvReader(env);
  return { config: readTracingConfig(reader), problems: reader.problems };
};

describe('OTEL_* settings', () => {
  it('traces only when an OTLP endpoint is set, to its /v1/traces (or the traces endpoint as is)', () => {
    expect(read({})).toEqual({ config: undefined, problems: [] });
    expect(read({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318/' }).config).toEqual({ tracesUrl: 'http://collector:4318/v1/traces' });
    expect(read({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'https://tempo.example/otlp/traces' }).config).toEqual({ tracesUrl: 'https://tempo.example/otlp/traces' });
    expect(read({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_SDK_DISABLED: 'true' }).config).toBeUndefined();
  });

  it('refuses a bad value with a message naming the variable, and never echoes the headers (a credential)', () => {
    const { problems } = read({
      OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318',
      OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc',
      OTEL_EXPORTER_OTLP_HEADERS: 'Authorization Bearer s3cret',
      OTEL_BSP_SCHEDULE_DELAY: 'soon',
      OTEL_TRACES_SAMPLER: 'sometimes',
      OTEL_TRACES_SAMPLER_ARG: '2',
    });
    expect(problems).toEqual([
      'OTEL_EXPORTER_OTLP_ENDPOINT must be a http: or https: URL, got "collector:4318"',
      'OTEL_EXPORTER_OTLP_PROTOCOL must be http/json (traces are exported as OTLP/HTTP JSON), got "grpc"',
      'OTEL_EXPORTER_OTLP_HEADERS must be key=value[,key=value…]',
      'OTEL_BSP_SCHEDULE_DELAY must be an integer from 1 to 86400000, got "soon"',
      'OTEL_TRACES_SAMPLER must be one of always_on, always_off, traceidratio, parentbased_always_on, parentbased_always_off, parentbased_traceidratio, got "sometimes"',
      'OTEL_TRACES_SAMPLER_ARG must be a ratio from 0 to 1, got "2"',
    ]);
    expect(problems.join('\n')).not.toContain('s3cret');
  });
});
