import { Controller, Get, Query, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { CONSOLE_SEARCH_LENGTH_MAX } from '@pay/kernel';
import { seeOther } from '../hosted/forms';
import { ConsolePages } from './console-pages';
import { kindOfId, objectPath } from './console-paths';
import { ConsoleRole } from './console-role';
import { ConsoleSearch } from './console-search';
import type { ConsoleViews } from './console-views';

/**
 * Search: an id opens its object's page; anything else is looked up as an order, invoice or payment
 * reference across integrators, and the matches listed.
 */
@Controller('console/search')
@ConsoleRole('admin', 'finance')
export class ConsoleSearchController {
  constructor(
    private readonly pages: ConsolePages,
    private readonly search: ConsoleSearch,
  ) {}

  @Get()
  async page(@Query('q') q: unknown, @Req() request: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply): Promise<string> {
    const query = typeof q === 'string' ? q.trim() : '';
    const render = (model: ConsoleViews['console-search'], status = 200) =>
      this.pages.render(request, reply, 'console-search', model, { title: ['console.search.title'], section: 'search', status });
    if (query === '') return render({ query: '', notice: null, results: null, truncated: false });
    if (query.length > CONSOLE_SEARCH_LENGTH_MAX) {
      return render({ query: query.slice(0, CONSOLE_SEARCH_LENGTH_MAX), notice: { kind: 'error', key: 'console.search.too_long', params: { max: CONSOLE_SEARCH_LENGTH_MAX } }, results: null, truncated: false }, 400);
    }
    if (kindOfId(query)) return seeOther(reply, objectPath(query));
    const { results, truncated } = await this.search.byReference(query);
    return render({ query, notice: null, results, truncated });
  }
}
