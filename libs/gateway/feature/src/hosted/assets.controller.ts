import { Controller, Get, Res, UseFilters } from '@nestjs/common';
import { HOSTED_ASSET_CACHE_SECONDS } from '@pay/kernel';
import type { FastifyReply } from 'fastify';
import { HostedPages } from './views/hosted-pages';
import { HostedErrorPages } from './views/hosted-error-pages';

/** Cached briefly: the brand changes only with a restart. */
const ASSET_CACHE = `public, max-age=${HOSTED_ASSET_CACHE_SECONDS}`;

/**
 * The hosted pages' own assets, from this origin (their CSP allows nothing else): the stylesheet and
 * the icon, in the brand's colours, the forms' pending state and the agents' QR scanner scripts.
 */
@UseFilters(HostedErrorPages)
@Controller('hosted/assets')
export class HostedAssetsController {
  constructor(private readonly pages: HostedPages) {}

  @Get('pages.css')
  stylesheet(@Res({ passthrough: true }) reply: FastifyReply): string {
    void reply.header('Content-Type', 'text/css; charset=utf-8').header('Cache-Control', ASSET_CACHE).header('X-Content-Type-Options', 'nosniff');
    return this.pages.css;
  }

  @Get('icon.svg')
  icon(@Res({ passthrough: true }) reply: FastifyReply): string {
    void reply
      .header('Content-Type', 'image/svg+xml')
      .header('Cache-Control', ASSET_CACHE)
      .header('X-Content-Type-Options', 'nosniff')
      .header('Content-Security-Policy', "default-src 'none'");
    return this.pages.icon;
  }

  @Get('agent-scan.js')
  scanScript(@Res({ passthrough: true }) reply: FastifyReply): string {
    void reply.header('Content-Type', 'text/javascript; charset=utf-8').header('Cache-Control', ASSET_CACHE).header('X-Content-Type-Options', 'nosniff');
    return this.pages.scanScript;
  }

  @Get('forms.js')
  formsScript(@Res({ passthrough: true }) reply: FastifyReply): string {
    void reply.header('Content-Type', 'text/javascript; charset=utf-8').header('Cache-Control', ASSET_CACHE).header('X-Content-Type-Options', 'nosniff');
    return this.pages.formsScript;
  }
}
