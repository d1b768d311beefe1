import { Injectable } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { PeopleRepository, type Agent } from '../../directory/people.repository';
import { formOf, redirect, sameToken } from '../forms';
import { SessionStore, type Session } from '../stores/sessions';
import { AGENT_APP, AgentViews } from './agent-views';

export interface AgentSession {
  session: Session;
  agent: Agent;
}

/** An agent's session, bound to the agent and the cash point they belonged to when signing in. */
@Injectable()
export class AgentSessions {
  constructor(
    private readonly sessions: SessionStore,
    private readonly people: PeopleRepository,
    private readonly views: AgentViews,
  ) {}

  async current(request: FastifyRequest): Promise<AgentSession | undefined> {
    const session = await this.sessions.current(request);
    if (session?.kind !== 'agent') return undefined;
    const agent = await this.people.findAgent(session.subjectId);
    return agent && agent.cashPoint === session.objectId ? { session, agent } : undefined;
  }

  /**
   * A form post of a signed-in agent (of `role`, when given): the session must be an agent's, still for
   * their cash point, and carry the form's CSRF token. `handle` answers where to go next (303).
   */
  async post(
    body: unknown,
    request: FastifyRequest,
    reply: FastifyReply,
    role: Agent['role'] | null,
    handle: (form: URLSearchParams, signedIn: AgentSession) => Promise<string>,
  ): Promise<void> {
    const signedIn = await this.current(request);
    const form = formOf(body);
    if (!signedIn) return this.views.signInFirst(request, reply);
    if (!form || !sameToken(form.get('csrf'), signedIn.session.csrfToken)) return this.views.formExpired(request, reply);
    if (role !== null && signedIn.agent.role !== role) return redirect(reply, `${AGENT_APP}?error=role`);
    return redirect(reply, await handle(form, signedIn));
  }
}
