import { ConfigError, EnvReader } from '@pay/kernel';
import { readGatewayConfig } from '../gateway.config';

describe('the hosted pages’ brand settings, read with the gateway’s', () => {
  const host = { dataDir: '/nonexistent', sandbox: false, publicBaseUrl: 'https://pay.example', embeddedDatabase: true };
  const read = (env: Record<string, string>) => readGatewayConfig(new EnvReader({ ADMIN_API_KEY: 'admin_0123456789abcdef', ...env }), host);

  it('passes BRAND_NAME and BRAND_COLOR to the pages, with defaults', () => {
    expect(read({}).brand).toEqual({ name: 'Pay', color: '#0b3d91' });
    expect(read({ BRAND_NAME: 'Sahla Pay', BRAND_COLOR: '#006233' }).brand).toEqual({ name: 'Sahla Pay', color: '#006233' });
  });

  it('a bad colour stops the start with a clear problem, listed with the others', () => {
    let thrown: unknown;
    try {
      read({ BRAND_COLOR: 'green', RATE_LIMIT_PER_SECOND: 'fast' });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ConfigError);
    expect((thrown as ConfigError).problems).toEqual([expect.stringContaining('RATE_LIMIT_PER_SECOND'), 'BRAND_COLOR must be a hex colour such as #0b3d91, got "green"']);
  });
});
