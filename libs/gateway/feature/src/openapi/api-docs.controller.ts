import { Controller, Get, Inject, Param, Res, type Type } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { notFound } from '@pay/contracts';
import { API_DOCS_ASSET_CACHE_SECONDS } from '@pay/kernel';
import { GATEWAY_CONFIG, type GatewayConfig } from '../gateway.config';
import { buildOpenApiDocument } from './document';

export const GATEWAY_CONTROLLERS = Symbol('GatewayControllers');

/** The renderer's files served under /docs/assets, from the swagger-ui-dist package (no CDN). */
const SWAGGER_UI_DIR = dirname(require.resolve('swagger-ui-dist/package.json'));
const ASSETS: Readonly<Record<string, string>> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'application/javascript; charset=utf-8',
  'swagger-ui-standalone-preset.js': 'application/javascript; charset=utf-8',
};

/**
 * Scripts and styles from this origin only, no inline style: swagger-ui sets its styles through the DOM
 * (which a CSP does not restrict) and loads images as data URLs.
 */
const DOCS_CSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

const DOCS_PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Payments API reference</title>
<link rel="stylesheet" href="/docs/assets/swagger-ui.css">
</head>
<body>
<div id="swagger-ui"></div>
<script src="/docs/assets/swagger-ui-bundle.js"></script>
<script src="/docs/assets/init.js"></script>
</body>
</html>`;

const INIT_SCRIPT = `window.ui = SwaggerUIBundle({ url: '/openapi.json', dom_id: '#swagger-ui', deepLinking: true });`;

/** GET /openapi.json (no key): the API described from the code; GET /docs: a reference rendered from it. */
@Controller()
export class ApiDocsController {
  private document: Record<string, unknown> | undefined;
  private readonly assets = new Map<string, Buffer>();

  constructor(
    @Inject(GATEWAY_CONTROLLERS) private readonly controllers: readonly Type[],
    @Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig,
  ) {}

  @Get('openapi.json')
  openApi(): Record<string, unknown> {
    this.document ??= buildOpenApiDocument(this.controllers, { title: 'Payments API', version: '1', serverUrl: this.config.publicBaseUrl });
    return this.document;
  }

  @Get('docs')
  docs(@Res({ passthrough: true }) reply: FastifyReply): string {
    void reply.header('Content-Type', 'text/html; charset=utf-8').header('Content-Security-Policy', DOCS_CSP);
    return DOCS_PAGE;
  }

  @Get('docs/assets/:file')
  asset(@Param('file') file: string, @Res({ passthrough: true }) reply: FastifyReply): Buffer | string {
    void reply.header('Cache-Control', `public, max-age=${API_DOCS_ASSET_CACHE_SECONDS}`);
    if (file === 'init.js') {
      void reply.header('Content-Type', 'application/javascript; charset=utf-8');
      return INIT_SCRIPT;
    }
    // Own names only: `__proto__` or `constructor` would find Object.prototype's members.
    const type = Object.hasOwn(ASSETS, file) ? ASSETS[file] : undefined;
    if (!type) throw notFound('file', file);
    void reply.header('Content-Type', type);
    let content = this.assets.get(file);
    if (!content) {
      content = readFileSync(join(SWAGGER_UI_DIR, file));
      this.assets.set(file, content);
    }
    return content;
  }
}
