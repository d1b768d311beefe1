/** The receiver's settings, from the environment. Secrets are read, never printed. */
export interface ReceiverConfig {
  port: number;
  host: string;
  /** The integrator API key (sk_…), for the retrieves and creates. */
  apiKey: string;
  /** The service's origin, e.g. http://127.0.0.1:3000. */
  baseUrl: string;
  /** The webhook endpoint's secret (whsec_…), answered once by POST /v1/webhook_endpoints. */
  webhookSecret: string;
  /** Absent: an embedded PostgreSQL under examples/receiver/.data. */
  databaseUrl: string | undefined;
}

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

/** Every problem at once, each with what to set. */
export function readConfig(env: NodeJS.ProcessEnv = process.env): ReceiverConfig {
  const problems: string[] = [];
  const required = (name: string, what: string): string => {
    const value = env[name]?.trim();
    if (!value) problems.push(`${name} is required: ${what}`);
    return value ?? '';
  };
  const apiKey = required('PAY_API_KEY', 'the integrator API key (sk_…) used to retrieve and create objects');
  const baseUrl = required('PAY_BASE_URL', "the service's origin, e.g. http://127.0.0.1:3000");
  if (baseUrl && !/^https?:\/\/[^/]+/.test(baseUrl)) problems.push(`PAY_BASE_URL must be an http(s) URL, e.g. http://127.0.0.1:3000 (got ${baseUrl})`);
  const webhookSecret = required('WEBHOOK_SECRET', "the webhook endpoint's secret (whsec_…), answered once when the endpoint is created");
  if (webhookSecret && !webhookSecret.startsWith('whsec_')) problems.push('WEBHOOK_SECRET must start with whsec_ (its value is not shown)');
  const portText = env['PORT']?.trim() || '4000';
  const port = Number(portText);
  if (!/^\d+$/.test(portText) || port > 65_535) problems.push(`PORT must be a port number from 0 to 65535 (got ${portText})`);
  if (problems.length > 0) throw new ConfigError(`the receiver cannot start:\n- ${problems.join('\n- ')}`);
  return { port, host: env['HOST']?.trim() || '127.0.0.1', apiKey, baseUrl, webhookSecret, databaseUrl: env['DATABASE_URL']?.trim() || undefined };
}
