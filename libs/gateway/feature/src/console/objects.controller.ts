import { Body, Controller, Get, Param, Post, Query, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ServiceError } from '@pay/contracts';
import { formOf, redirect } from '../hosted/forms';
import { ConsoleObjects } from './console-objects';
import { ConsolePages } from './console-pages';
import { objectPath } from './console-paths';
import { ConsoleRole, Session } from './console-role';
import type { ConsoleSession } from './console-sessions';
import type { Notice } from './console-views';
import { objectModel } from './object-view';

const EVENT_ID = /^evt_[0-9A-Za-z]{1,64}$/;

/** What a redirect after an action says on the object's page (`?done=` or `?error=`). */
const NOTICES: Readonly<Record<string, Notice>> = {
  redelivered: { kind: 'success', key: 'console.object.redelivered' },
  rate_limited: { kind: 'error', key: 'console.object.redeliver_rate_limited' },
  failed: { kind: 'error', key: 'console.object.action_failed' },
};
const noticeOf = (...codes: unknown[]): Notice | null => {
  const code = codes.find((c): c is string => typeof c === 'string' && Object.hasOwn(NOTICES, c));
  return code ? NOTICES[code]! : null;
};

/**
 * An object's page (any id the search opens): its fields, its status timeline from its events, its
 * ledger entries and postings, its webhook deliveries with each attempt, its audit events; the admin
 * may send an event's webhooks again, after a confirmation step.
 */
@Controller('console/objects')
@ConsoleRole('admin', 'finance')
export class ConsoleObjectsController {
  constructor(
    private readonly pages: ConsolePages,
    private readonly objects: ConsoleObjects,
  ) {}

  @Get(':id')
  async page(
    @Param('id') id: string,
    @Query('done') done: unknown,
    @Query('error') error: unknown,
    @Session() session: ConsoleSession,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<string> {
    const object = await this.objects.load(id);
    return this.pages.render(request, reply, 'console-object', objectModel(object, session.role === 'admin', noticeOf(done, error)), {
      title: ['console.object.title', { id }],
      section: 'search',
    });
  }

  /** The confirmation step of a redelivery: what will happen, and the form that does it. */
  @Get(':id/redeliver')
  @ConsoleRole('admin')
  async confirmRedeliver(@Param('id') id: string, @Query('event') event: unknown, @Req() request: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply): Promise<string> {
    if (typeof event !== 'string' || !EVENT_ID.test(event)) throw new ServiceError('invalid_request', 'event must be an event id');
    const object = await this.objects.load(id);
    const found = object.events.find((e) => e.event.id === event);
    if (!found) throw new ServiceError('resource_not_found', 'no such event of this object');
    return this.pages.render(
      request,
      reply,
      'console-confirm',
      {
        heading: 'console.object.redeliver_confirm',
        text: 'console.object.redeliver_confirm_text',
        params: { event: event, type: found.event.type },
        action: `${objectPath(id)}/redeliver`,
        fields: [{ name: 'event', value: event }],
        submit: 'console.object.redeliver',
        cancel: `${objectPath(id)}#webhooks`,
      },
      { title: ['console.object.redeliver_confirm'], section: 'search' },
    );
  }

  @Post(':id/redeliver')
  @ConsoleRole('admin')
  async redeliver(@Param('id') id: string, @Body() body: unknown, @Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const event = formOf(body)?.get('event') ?? '';
    if (!EVENT_ID.test(event)) throw new ServiceError('invalid_request', 'event must be an event id');
    try {
      await this.objects.redeliver(id, event, String(request.id));
      return redirect(reply, `${objectPath(id)}?done=redelivered#webhooks`);
    } catch (error) {
      if (error instanceof ServiceError && error.code === 'rate_limited') return redirect(reply, `${objectPath(id)}?error=rate_limited#webhooks`);
      throw error;
    }
  }
}
