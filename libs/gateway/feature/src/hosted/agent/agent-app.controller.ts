import { Body, Controller, Get, Post, Query, Req, Res, UseFilters } from '@nestjs/common';
import type { CollectionResource } from '@pay/contracts';
import { SIGN_IN_FIELD_LENGTH_MAX } from '@pay/kernel';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { DirectoryRepository } from '../../directory/directory.repository';
import { PeopleRepository } from '../../directory/people.repository';
import { redirect } from '../forms';
import { SessionStore, signInCsrfToken, signInFormOf } from '../stores/sessions';
import { attemptsLeftParam, lockWarning, SignInAttempts } from '../stores/sign-in-attempts';
import { agentSignInLogin, SignInLimiter } from '../stores/sign-in-limiter';
import { AgentReads } from './agent-reads';
import { AgentSessions } from './agent-sessions';
import { AGENT_APP, AgentViews, collectionPath, type AgentListItem } from './agent-views';
import { HostedErrorPages } from '../views/hosted-error-pages';

/**
 * The cash agents' application at /hosted/agent: its home, sign-in and sign-out. An agent signs in
 * (login and password) for the cash point they belong to; the session is bound to the agent and that
 * cash point. A cashier works on cash payments (AgentCashPaymentsController) and deposits, a carrier
 * on handovers (AgentCollectionsController).
 */
@UseFilters(HostedErrorPages)
@Controller('hosted/agent')
export class AgentAppController {
  constructor(
    private readonly agentSessions: AgentSessions,
    private readonly sessions: SessionStore,
    private readonly signIns: SignInLimiter,
    private readonly attempts: SignInAttempts,
    private readonly people: PeopleRepository,
    private readonly directory: DirectoryRepository,
    private readonly reads: AgentReads,
    private readonly views: AgentViews,
  ) {}

  @Get()
  async home(@Query('error') error: unknown, @Query('left') left: unknown, @Query('lock') lock: unknown, @Req() request: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply) {
    const signedIn = await this.agentSessions.current(request);
    if (!signedIn) return this.views.signIn(request, reply, signInCsrfToken(request, reply), error, lockWarning(error, left, lock));
    const { agent, session } = signedIn;
    const cashier = agent.role === 'cashier';
    const [point, expected, queue] = await Promise.all([
      this.reads.cashPointName(agent.cashPoint),
      cashier ? this.reads.expectedDeposits(agent.cashPoint) : [],
      cashier ? { awaitingPickup: [], toDeposit: [] } : this.reads.carrierQueue(agent.id),
    ]);
    const names = new Map<string, Promise<string>>();
    const nameOf = (id: string, read: (id: string) => Promise<string>) => names.get(id) ?? names.set(id, read(id)).get(id)!;
    const item = async (c: CollectionResource): Promise<AgentListItem> => ({
      href: collectionPath(c.id),
      recipient: await nameOf(c.beneficiary_connection, async (id) => (await this.directory.findConnection(id))?.name ?? id),
      order: c.order_reference,
      amount: c.amount,
      currency: c.currency,
      dueAt: c.deposit?.due_at ?? null,
      point: c.deposit && !cashier ? await nameOf(c.deposit.point, (id) => this.reads.cashPointName(id)) : null,
    });
    const lists = {
      deposits: await Promise.all(expected.map(item)),
      pickups: await Promise.all(queue.awaitingPickup.map(item)),
      toDeposit: await Promise.all(queue.toDeposit.map(item)),
    };
    return this.views.home(request, reply, agent, session.csrfToken, point, lists, error);
  }

  @Post('sign-in')
  async signIn(@Body() body: unknown, @Req() request: FastifyRequest, @Res() reply: FastifyReply) {
    const form = signInFormOf(body, request);
    if (!form) return this.views.formExpired(request, reply);
    const loginName = (form.get('login') ?? '').trim().slice(0, SIGN_IN_FIELD_LENGTH_MAX);
    const login = agentSignInLogin(loginName);
    const signedIn = await this.signIns.signIn(login, request.ip, async () =>
      loginName ? this.people.signInAgent(loginName, (form.get('password') ?? '').slice(0, SIGN_IN_FIELD_LENGTH_MAX)) : undefined,
    );
    if ('refused' in signedIn) {
      const left = signedIn.refused === 'sign_in' ? attemptsLeftParam(await this.attempts.left(login)) : '';
      return this.views.signInRefused(request, reply, signedIn.refused, left);
    }
    await this.sessions.open(reply, { kind: 'agent', subjectId: signedIn.subject.id, objectId: signedIn.subject.cashPoint });
    return redirect(reply, AGENT_APP);
  }

  @Post('sign-out')
  async signOut(@Body() body: unknown, @Req() request: FastifyRequest, @Res() reply: FastifyReply) {
    return this.agentSessions.post(body, request, reply, null, async () => {
      await this.sessions.close(request, reply);
      return AGENT_APP;
    });
  }
}
