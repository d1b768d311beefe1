import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Controller, Get, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { HOSTED_ASSET_CACHE_SECONDS } from '@pay/kernel';
import { CONSOLE_PATH } from './console-sessions';

/** The console's stylesheet, beside the hosted pages' (which it loads first: brand colours, forms, cards). */
const CONSOLE_CSS = readFileSync(join(__dirname, '..', '..', 'views', 'console', 'console.css'), 'utf8');

@Controller(`${CONSOLE_PATH.slice(1)}/assets`)
export class ConsoleAssetsController {
  @Get('console.css')
  stylesheet(@Res({ passthrough: true }) reply: FastifyReply): string {
    void reply.header('Content-Type', 'text/css; charset=utf-8').header('Cache-Control', `public, max-age=${HOSTED_ASSET_CACHE_SECONDS}`).header('X-Content-Type-Options', 'nosniff');
    return CONSOLE_CSS;
  }
}
