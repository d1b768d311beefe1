import { writeFileSync } from 'node:fs';
import { buildOpenApiDocument, GatewayModule } from '@pay/gateway-feature';
import { DEFAULT_BRAND } from '@pay/hosted-ui';

/**
 * `node tools/run.js tools/openapi/write-document.ts <file> [server-url]`: the OpenAPI document the
 * service serves at /openapi.json (sandbox routes included), written to a file for the lint tools.
 */
const [file, serverUrl = 'https://api.example.test'] = process.argv.slice(2);
if (!file) {
  console.error('usage: write-document.ts <file.json> [server-url]');
  process.exit(2);
}
const controllers = GatewayModule.forRoot({ sandbox: true, adminApiKey: 'unused', rateLimitPerSecond: 0, publicBaseUrl: serverUrl, brand: DEFAULT_BRAND }).controllers ?? [];
writeFileSync(file, `${JSON.stringify(buildOpenApiDocument(controllers, { title: 'Payments API', version: '1', serverUrl }), null, 2)}\n`);
