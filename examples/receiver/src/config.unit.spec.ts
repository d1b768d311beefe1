import { ConfigError, readConfig } from './config';

describe('receiver configuration', () => {
  const valid = { PAY_API_KEY: 'sk_test_1', PAY_BASE_URL: 'http://127.0.0.1:3000', WEBHOOK_SECRET: 'whsec_c2VjcmV0' };

  it('reads the settings; PORT 4000 and an embedded database by default', () => {
    expect(readConfig(valid)).toEqual({ port: 4000, host: '127.0.0.1', apiKey: 'sk_test_1', baseUrl: 'http://127.0.0.1:3000', webhookSecret: 'whsec_c2VjcmV0', databaseUrl: undefined });
    expect(readConfig({ ...valid, PORT: '0', DATABASE_URL: 'postgres://x@127.0.0.1/db' })).toMatchObject({ port: 0, databaseUrl: 'postgres://x@127.0.0.1/db' });
  });

  it('names every missing setting at once', () => {
    const error = (() => {
      try {
        readConfig({});
      } catch (e) {
        return e as Error;
      }
    })();
    expect(error).toBeInstanceOf(ConfigError);
    expect(error!.message).toMatch(/PAY_API_KEY is required/);
    expect(error!.message).toMatch(/PAY_BASE_URL is required/);
    expect(error!.message).toMatch(/WEBHOOK_SECRET is required/);
  });

  it('refuses a malformed secret without showing it, and a bad URL or port', () => {
    expect(() => readConfig({ ...valid, WEBHOOK_SECRET: 'not-a-secret-value' })).toThrow(/WEBHOOK_SECRET must start with whsec_/);
    expect(() => readConfig({ ...valid, WEBHOOK_SECRET: 'not-a-secret-value' })).not.toThrow(/not-a-secret-value/);
    expect(() => readConfig({ ...valid, PAY_BASE_URL: 'api.pay.example' })).toThrow(/PAY_BASE_URL must be an http\(s\) URL/);
    expect(() => readConfig({ ...valid, PORT: 'eighty' })).toThrow(/PORT must be a port number/);
  });
});
