import { Body, Controller, Get, Post, Query, Req, Res } from '@nestjs/common';
import { SIGN_IN_FIELD_LENGTH_MAX } from '@pay/kernel';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { DirectoryRepository } from '../../directory/directory.repository';
import { PeopleRepository } from '../../directory/people.repository';
import { redirect } from '../forms';
import { SessionStore, signInCsrfToken, signInFormOf } from '../stores/sessions';
import { SignInLimiter } from '../stores/sign-in-limiter';
import { AgentReads } from './agent-reads';
import { AgentSessions } from './agent-sessions';
import { AGENT_APP, AgentViews, collectionPath } from './agent-views';

/**
 * The cash agents' application at /hosted/agent: its home, sign-in and sign-out. An agent signs in
 * (login and password) for the cash point they belong to; the session is bound to the agent and that
 * cash point. A cashier works on cash payments (AgentCashPaymentsController) and deposits, a carrier
 * on handovers (AgentCollectionsController).
 */
@Controller('hosted/agent')
export class AgentAppController {
  constructor(
    private readonly agentSessions: AgentSessions,
    private readonly sessions: SessionStore,
    private readonly signIns: SignInLimiter,
    private readonly people: PeopleRepository,
    private readonly directory: DirectoryRepository,
    private readonly reads: AgentReads,
    private readonly views: AgentViews,
  ) {}

  @Get()
  async home(@Query('error') error: unknown, @Req() request: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply) {
    const signedIn = await this.agentSessions.current(request);
    if (!signedIn) return this.views.signIn(request, reply, signInCsrfToken(request, reply), error);
    const { agent, session } = signedIn;
    const [point, expected] = await Promise.all([this.reads.cashPointName(agent.cashPoint), agent.role === 'cashier' ? this.reads.expectedDeposits(agent.cashPoint) : []]);
    const deposits = await Promise.all(
      expected.map(async (c) => ({
        href: collectionPath(c.id),
        recipient: (await this.directory.findConnection(c.beneficiary_connection))?.name ?? c.beneficiary_connection,
        amount: c.amount,
        currency: c.currency,
        dueAt: c.deposit!.due_at,
      })),
    );
    return this.views.home(request, reply, agent, session.csrfToken, point, deposits, error);
  }

  @Post('sign-in')
  async signIn(@Body() body: unknown, @Req() request: FastifyRequest, @Res() reply: FastifyReply) {
    const form = signInFormOf(body, request);
    if (!form) return this.views.formExpired(request, reply);
    const loginName = (form.get('login') ?? '').trim().slice(0, SIGN_IN_FIELD_LENGTH_MAX);
    const signedIn = await this.signIns.signIn(`agent:${loginName}`, request.ip, async () =>
      loginName ? this.people.signInAgent(loginName, (form.get('password') ?? '').slice(0, SIGN_IN_FIELD_LENGTH_MAX)) : undefined,
    );
    if ('refused' in signedIn) return this.views.signInRefused(request, reply, signedIn.refused);
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
