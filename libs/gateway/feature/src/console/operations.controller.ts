import { Body, Controller, Get, Inject, Post, Query, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { MESSAGE_BUS, type MessageBus } from '@pay/bus';
import { ServiceError, SUBSCRIBING_APPS, type SubscribingApp } from '@pay/contracts';
import { CONSOLE_LIST_MAX, newId, OPERATIONS_APP_TIMEOUT_MS, OPERATIONS_REPLAY_TIMEOUT_MS, type Clock } from '@pay/kernel';
import { CLOCK } from '@pay/platform';
import { AuditLog } from '../directory/audit-log';
import { formOf, redirect } from '../hosted/forms';
import { auditedAction } from './console-audit';
import { ConsolePages } from './console-pages';
import { operationsPath } from './console-paths';
import { ConsoleRole } from './console-role';
import type { Notice } from './console-views';

const SUBSCRIPTION_ID = new RegExp(`^(${SUBSCRIBING_APPS.join('|')})\\.[a-z0-9][a-z0-9-]{0,99}$`);
const EVENT_ID = /^[A-Za-z0-9_-]{1,100}$/;
const ENDPOINT_ID = /^we_[0-9A-Za-z]{1,64}$/;
const COUNT = /^[0-9]{1,9}$/;

/** The app that keeps a subscription: its id's prefix (`payments.payment-views`). */
const appOf = (subscriptionId: string): SubscribingApp => SUBSCRIBING_APPS.find((app) => subscriptionId.startsWith(`${app}.`))!;

/**
 * Operations (admin only, like the operator API): each app's subscriptions and their lag, parked
 * events with their replay, failing endpoints, failed deliveries with their bulk redelivery. Every
 * action is a confirmation page, then a form post; the same bus requests as /admin/v1/operations.
 */
@Controller('console/operations')
@ConsoleRole('admin')
export class ConsoleOperationsController {
  constructor(
    private readonly pages: ConsolePages,
    @Inject(MESSAGE_BUS) private readonly bus: MessageBus,
    private readonly auditLog: AuditLog,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  @Get()
  async page(@Query() query: Record<string, unknown>, @Req() request: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply): Promise<string> {
    const [subscriptions, parked, failing, failed] = await Promise.all([
      this.everyApp((app) => this.bus.request(`${app}.operations.subscriptions`, {}, { timeoutMs: OPERATIONS_APP_TIMEOUT_MS })),
      this.everyApp((app) => this.bus.request(`${app}.operations.parked-events`, { limit: CONSOLE_LIST_MAX + 1 }, { timeoutMs: OPERATIONS_APP_TIMEOUT_MS })),
      this.bus.request('webhooks.operations.failing-endpoints', { limit: CONSOLE_LIST_MAX + 1 }),
      this.bus.request('webhooks.operations.failed-deliveries', { limit: CONSOLE_LIST_MAX }),
    ]);
    const parkedEvents = parked.answers.flatMap((a) => a.items).sort((a, b) => b.parkedAt.localeCompare(a.parkedAt));
    return this.pages.render(
      request,
      reply,
      'console-operations',
      {
        notice: this.notice(query),
        errors: [...subscriptions.errors, ...parked.errors.filter((e) => !subscriptions.errors.some((s) => s.app === e.app))],
        subscriptions: subscriptions.answers.flatMap((a) => a.items),
        parked: parkedEvents.slice(0, CONSOLE_LIST_MAX),
        parkedMore: parkedEvents.length > CONSOLE_LIST_MAX,
        failingEndpoints: failing.items.slice(0, CONSOLE_LIST_MAX),
        failedDeliveries: failed.data,
        failedMore: failed.has_more,
        max: CONSOLE_LIST_MAX,
      },
      { title: ['console.ops.title'], section: 'operations' },
    );
  }

  /** The confirmation of a replay: one parked event (`subscription` and `event`), or every one (neither). */
  @Get('replay')
  confirmReplay(@Query('subscription') subscription: unknown, @Query('event') event: unknown, @Req() request: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply): string {
    const one = this.replayTarget(subscription, event);
    return this.pages.render(
      request,
      reply,
      'console-confirm',
      {
        heading: 'console.ops.replay_confirm',
        text: one ? 'console.ops.replay_confirm_text' : 'console.ops.replay_all_confirm_text',
        params: one ? { event: one.eventId, subscription: one.subscriptionId } : {},
        action: `${operationsPath()}/replay`,
        fields: one ? [{ name: 'subscription', value: one.subscriptionId }, { name: 'event', value: one.eventId }] : [],
        submit: one ? 'console.ops.replay' : 'console.ops.replay_all',
        cancel: `${operationsPath()}#parked`,
      },
      { title: ['console.ops.replay_confirm'], section: 'operations' },
    );
  }

  @Post('replay')
  async replay(@Body() body: unknown, @Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const form = formOf(body)!;
    const one = this.replayTarget(form.get('subscription') ?? undefined, form.get('event') ?? undefined);
    const ask = (app: SubscribingApp) => this.bus.request(`${app}.operations.replay-parked`, one ?? {}, { timeoutMs: OPERATIONS_REPLAY_TIMEOUT_MS });
    const target = one ? { object: 'parked_event', id: one.eventId } : { object: 'operation', id: newId('operation') };
    const answers = await auditedAction(this.auditLog, this.clock, { action: 'parked_events.replayed', target, integrator: null, requestId: String(request.id) }, async () =>
      one ? [await ask(appOf(one.subscriptionId))] : (await this.everyApp(ask)).answers,
    );
    const replayed = answers.reduce((sum, a) => sum + a.replayed, 0);
    const failed = answers.reduce((sum, a) => sum + a.failed.length, 0);
    return redirect(reply, `${operationsPath()}?done=replayed&replayed=${replayed}&failed=${failed}#parked`);
  }

  /** The confirmation of a bulk redelivery: one endpoint's failed deliveries (`endpoint`), or every one. */
  @Get('redeliver')
  confirmRedeliver(@Query('endpoint') endpoint: unknown, @Req() request: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply): string {
    const one = this.endpointOf(endpoint);
    return this.pages.render(
      request,
      reply,
      'console-confirm',
      {
        heading: 'console.ops.redeliver_confirm',
        text: one ? 'console.ops.redeliver_endpoint_confirm_text' : 'console.ops.redeliver_all_confirm_text',
        params: one ? { endpoint: one } : {},
        action: `${operationsPath()}/redeliver`,
        fields: one ? [{ name: 'endpoint', value: one }] : [],
        submit: one ? 'console.ops.redeliver_endpoint' : 'console.ops.redeliver_all',
        cancel: `${operationsPath()}#failed`,
      },
      { title: ['console.ops.redeliver_confirm'], section: 'operations' },
    );
  }

  @Post('redeliver')
  async redeliver(@Body() body: unknown, @Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const endpointId = this.endpointOf(formOf(body)!.get('endpoint') ?? undefined);
    const target = endpointId ? { object: 'webhook_endpoint', id: endpointId } : { object: 'operation', id: newId('operation') };
    const { redelivered } = await auditedAction(this.auditLog, this.clock, { action: 'failed_deliveries.redelivered', target, integrator: null, requestId: String(request.id) }, () =>
      this.bus.request('webhooks.operations.redeliver-failed', endpointId ? { endpointId } : {}, { timeoutMs: OPERATIONS_REPLAY_TIMEOUT_MS }),
    );
    return redirect(reply, `${operationsPath()}?done=redelivered&count=${redelivered}#failed`);
  }

  private notice(query: Record<string, unknown>): Notice | null {
    const count = (name: string) => (typeof query[name] === 'string' && COUNT.test(query[name]) ? Number(query[name]) : 0);
    if (query['done'] === 'replayed') return { kind: 'success', key: 'console.ops.replayed', params: { replayed: count('replayed'), failed: count('failed') } };
    if (query['done'] === 'redelivered') return { kind: 'success', key: 'console.ops.redelivered', params: { count: count('count') } };
    return null;
  }

  private replayTarget(subscription: unknown, event: unknown): { subscriptionId: string; eventId: string } | undefined {
    if ((subscription === undefined || subscription === '') && (event === undefined || event === '')) return undefined;
    if (typeof subscription !== 'string' || !SUBSCRIPTION_ID.test(subscription) || typeof event !== 'string' || !EVENT_ID.test(event)) {
      throw new ServiceError('invalid_request', 'a replay names a subscription and one of its parked events, or neither');
    }
    return { subscriptionId: subscription, eventId: event };
  }

  private endpointOf(endpoint: unknown): string | undefined {
    if (endpoint === undefined || endpoint === '') return undefined;
    if (typeof endpoint !== 'string' || !ENDPOINT_ID.test(endpoint)) throw new ServiceError('invalid_request', 'endpoint must be a webhook endpoint id (we_…)');
    return endpoint;
  }

  /** Asks every subscribing app at once; one that fails or does not answer is listed, not fatal. */
  private async everyApp<T>(ask: (app: SubscribingApp) => Promise<T>): Promise<{ answers: T[]; errors: { app: string; message: string }[] }> {
    const settled = await Promise.allSettled(SUBSCRIBING_APPS.map(ask));
    const answers: T[] = [];
    const errors: { app: string; message: string }[] = [];
    settled.forEach((outcome, index) => {
      if (outcome.status === 'fulfilled') answers.push(outcome.value);
      else errors.push({ app: SUBSCRIBING_APPS[index]!, message: outcome.reason instanceof ServiceError ? outcome.reason.message : 'no answer' });
    });
    return { answers, errors };
  }
}
