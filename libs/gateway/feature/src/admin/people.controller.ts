import { Body, Controller, HttpCode, Inject, Param, Post, UseGuards } from '@nestjs/common';
import { IsDefined, IsIn, IsNotEmpty, IsOptional, IsString, Length, Matches, MaxLength } from 'class-validator';
import { MESSAGE_BUS, type MessageBus } from '@pay/bus';
import { AgentResource, BusinessUserResource, notFound, ServiceError } from '@pay/contracts';
import { LOGIN_LENGTH_MAX, LOGIN_LENGTH_MIN, PASSWORD_LENGTH_MAX, PASSWORD_LENGTH_MIN, STRING_LENGTH_MAX, type OffsetClock } from '@pay/kernel';
import { CLOCK } from '@pay/platform';
import { AdminGuard } from '../auth/admin.guard';
import { DirectoryRepository } from '../directory/directory.repository';
import { PeopleRepository, type Agent, type AgentRole, type BusinessUser } from '../directory/people.repository';
import { checkIdempotencyKey, Creation, type CreateRequest } from '../http/idempotency-key';
import { validateBody } from '../http/validation';
import { IdempotencyStore } from '../idempotency/idempotency';
import { bodyKey } from '../idempotency/secret-seal';
import { JsonBody, Returns } from '../openapi/describe';
import { Audit, Audited, type AuditTrail } from '../audit/audited';
import { agentSignInLogin, businessUserSignInLogin, SignInLimiter } from '../hosted/stores/sign-in-limiter';

const LOGIN = new RegExp(`^[A-Za-z0-9._@+-]{${LOGIN_LENGTH_MIN},${LOGIN_LENGTH_MAX}}$`);
const LOGIN_MESSAGE = { message: `login must be ${LOGIN_LENGTH_MIN} to ${LOGIN_LENGTH_MAX} letters, digits or . _ @ + -` };
const PASSWORD_MESSAGE = { message: `password must be ${PASSWORD_LENGTH_MIN} to ${PASSWORD_LENGTH_MAX} characters` };

class BusinessUserBody {
  @IsDefined() @IsString() @IsNotEmpty() @MaxLength(STRING_LENGTH_MAX) business!: string;
  @IsDefined() @IsString() @IsNotEmpty() @MaxLength(STRING_LENGTH_MAX) name!: string;
  @IsDefined() @IsString() @Matches(LOGIN, LOGIN_MESSAGE) login!: string;
  @IsDefined() @IsString() @Length(PASSWORD_LENGTH_MIN, PASSWORD_LENGTH_MAX, PASSWORD_MESSAGE) password!: string;
}

class AgentBody {
  @IsDefined() @IsString() @IsNotEmpty() @MaxLength(STRING_LENGTH_MAX) cash_point!: string;
  @IsDefined() @IsString() @IsNotEmpty() @MaxLength(STRING_LENGTH_MAX) name!: string;
  @IsDefined() @IsString() @Matches(LOGIN, LOGIN_MESSAGE) login!: string;
  @IsDefined() @IsString() @Length(PASSWORD_LENGTH_MIN, PASSWORD_LENGTH_MAX, PASSWORD_MESSAGE) password!: string;
  @IsOptional() @IsString() @IsIn(['cashier', 'carrier']) role?: AgentRole;
}

/** A new password, set by the back office (forgotten, or the sign-in is locked until reset). */
class PasswordBody {
  @IsDefined() @IsString() @Length(PASSWORD_LENGTH_MIN, PASSWORD_LENGTH_MAX, PASSWORD_MESSAGE) password!: string;
}

const loginTaken = (login: string) => new ServiceError('invalid_request', `the login '${login}' is taken`, 'login');

/**
 * The people of the hosted pages (admin API, Bearer ADMIN_API_KEY): authorized users of a business,
 * who approve its supplier payments at approval_url, and cash agents of a cash point, who sign in to
 * the agents' application at /hosted/agent. Passwords are stored scrypt-hashed and never returned.
 */
@Controller('admin/v1')
@UseGuards(AdminGuard)
export class PeopleController {
  constructor(
    @Inject(MESSAGE_BUS) private readonly bus: MessageBus,
    @Inject(CLOCK) private readonly clock: OffsetClock,
    private readonly directory: DirectoryRepository,
    private readonly people: PeopleRepository,
    private readonly idempotency: IdempotencyStore,
    private readonly signIns: SignInLimiter,
  ) {}

  @Returns(BusinessUserResource, 'Create a business user')
  @JsonBody(BusinessUserBody)
  @Post('business_users')
  @HttpCode(201)
  @Audited('business_user.created')
  async createBusinessUser(@Creation() request: CreateRequest, @Audit() audit: AuditTrail): Promise<BusinessUserResource> {
    const input = validateBody(BusinessUserBody, request.body);
    const business = await this.directory.findConnection(input.business);
    if (!business || business.kind !== 'business') throw new ServiceError('invalid_request', `no such business connection: '${input.business}'`, 'business');
    const key = checkIdempotencyKey(request.idempotencyKey);
    // The body holds the password: its stored digest is keyed.
    const call = { scope: 'admin', key, endpoint: 'POST /admin/v1/business_users', objectKind: 'businessUser' as const, bodyKey: bodyKey(request, key) };
    return this.idempotency.run(call, request, async (userId) => {
      const user = await this.people.createBusinessUser(input, this.clock.now(), userId, audit.record, business.integratorId);
      if (!user) throw loginTaken(input.login);
      return businessUserResource(user);
    });
  }

  @Returns(AgentResource, 'Create a cash agent')
  @JsonBody(AgentBody)
  @Post('agents')
  @HttpCode(201)
  @Audited('agent.created')
  async createAgent(@Creation() request: CreateRequest, @Audit() audit: AuditTrail): Promise<AgentResource> {
    const input = validateBody(AgentBody, request.body);
    try {
      await this.bus.request('cash.cash-points.retrieve', { cashPointId: input.cash_point });
    } catch (error) {
      if (error instanceof ServiceError && error.code === 'resource_not_found') throw new ServiceError('invalid_request', `no such cash point: '${input.cash_point}'`, 'cash_point');
      throw error;
    }
    const key = checkIdempotencyKey(request.idempotencyKey);
    // The body holds the password: its stored digest is keyed.
    const call = { scope: 'admin', key, endpoint: 'POST /admin/v1/agents', objectKind: 'agent' as const, bodyKey: bodyKey(request, key) };
    return this.idempotency.run(call, request, async (agentId) => {
      const agent = await this.people.createAgent(
        { cashPoint: input.cash_point, role: input.role ?? 'cashier', name: input.name, login: input.login, password: input.password },
        this.clock.now(),
        agentId,
        audit.record,
      );
      if (!agent) throw loginTaken(input.login);
      return agentResource(agent);
    });
  }

  @Returns(BusinessUserResource, 'Reset a business user’s password', { description: 'Sets a new password and lifts every sign-in lock on the login, the lasting one included; its open hosted sessions end.' })
  @JsonBody(PasswordBody)
  @Post('business_users/:id/reset_password')
  @HttpCode(200)
  @Audited('business_user.password_reset', { repeatable: true })
  async resetBusinessUserPassword(@Param('id') userId: string, @Body() body: unknown, @Audit() audit: AuditTrail): Promise<BusinessUserResource> {
    const { password } = validateBody(PasswordBody, body);
    const integratorOf = async (business: string) => (await this.directory.findConnection(business))?.integratorId ?? null;
    const user = await this.people.resetBusinessUserPassword(userId, password, audit.record, integratorOf);
    if (!user) throw notFound('business user', userId);
    await this.signIns.reset([businessUserSignInLogin(user.login)]);
    return businessUserResource(user);
  }

  @Returns(AgentResource, 'Reset a cash agent’s password', { description: 'Sets a new password and lifts every sign-in lock on the login, the lasting one included; its open hosted sessions end.' })
  @JsonBody(PasswordBody)
  @Post('agents/:id/reset_password')
  @HttpCode(200)
  @Audited('agent.password_reset', { repeatable: true })
  async resetAgentPassword(@Param('id') agentId: string, @Body() body: unknown, @Audit() audit: AuditTrail): Promise<AgentResource> {
    const { password } = validateBody(PasswordBody, body);
    const agent = await this.people.resetAgentPassword(agentId, password, audit.record);
    if (!agent) throw notFound('agent', agentId);
    await this.signIns.reset([agentSignInLogin(agent.login)]);
    return agentResource(agent);
  }
}

const businessUserResource = (user: BusinessUser): BusinessUserResource => ({
  id: user.id,
  object: 'business_user',
  business: user.business,
  name: user.name,
  login: user.login,
  created_at: user.createdAt,
});

const agentResource = (agent: Agent): AgentResource => ({
  id: agent.id,
  object: 'agent',
  cash_point: agent.cashPoint,
  role: agent.role,
  name: agent.name,
  login: agent.login,
  created_at: agent.createdAt,
});
