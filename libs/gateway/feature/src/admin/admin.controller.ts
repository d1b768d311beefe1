import { Body, Controller, Header, HttpCode, Inject, Param, Post, UseGuards } from '@nestjs/common';
import { IsDefined, IsIn, IsInt, IsNotEmpty, IsOptional, IsString, Matches, Max, MaxLength, Min } from 'class-validator';
import { MESSAGE_BUS, type MessageBus } from '@pay/bus';
import { AdminBeneficiaryResource, CashPointResource, CollectionResource, type ConnectionKind, ConnectionResource, CreatedApiKeyResource, CreatedFinanceKeyResource, CreatedIntegratorResource, CustomerResource, notFound, RevokedKeyResource, ServiceError, TopupResource } from '@pay/contracts';
import { AMOUNT_MAX_MINOR, CASH_POINT_ADDRESS_LENGTH_MAX, ID_LENGTH_MAX, PHONE_LENGTH_MAX, PHONE_LENGTH_MIN, PIN_LENGTH_MAX, PIN_LENGTH_MIN, SETTLEMENT_REQUEST_TIMEOUT_MS, STRING_LENGTH_MAX, type Currency, type OffsetClock } from '@pay/kernel';
import { CLOCK } from '@pay/platform';
import { AdminGuard } from '../auth/admin.guard';
import { ApiKeyAuthenticator } from '../auth/auth';
import { ApiKeysRepository } from '../directory/api-keys.repository';
import { DirectoryRepository } from '../directory/directory.repository';
import { NO_STORE } from '../http/headers';
import { checkIdempotencyKey, Creation, type CreateRequest } from '../http/idempotency-key';
import { code, IsAmount, IsSupportedCurrency, requireEmptyBody, validateBody } from '../http/validation';
import { IdempotencyStore } from '../idempotency/idempotency';
import { bodyKey, secretSeal } from '../idempotency/secret-seal';
import { JsonBody, Returns } from '../openapi/describe';
import { Audit, Audited, type AuditTrail } from '../audit/audited';
import { customerSignInLogins } from '../hosted/phones';
import { SignInLimiter } from '../hosted/stores/sign-in-limiter';

class NameBody {
  @IsDefined() @IsString() @IsNotEmpty() @MaxLength(STRING_LENGTH_MAX) name!: string;
}

class ConnectionBody {
  @IsDefined() @IsString() @IsNotEmpty() @MaxLength(STRING_LENGTH_MAX) integrator!: string;
  @IsDefined() @IsString() @IsIn(['merchant', 'business', 'wholesaler']) kind!: ConnectionKind;
  @IsDefined() @IsString() @IsNotEmpty() @MaxLength(STRING_LENGTH_MAX) name!: string;
  @IsDefined() @IsString() @IsNotEmpty() @IsSupportedCurrency() currency!: Currency;
}

const PHONE = new RegExp(`^\\+?[0-9 ]{${PHONE_LENGTH_MIN},${PHONE_LENGTH_MAX}}$`);
const PIN = new RegExp(`^[0-9]{${PIN_LENGTH_MIN},${PIN_LENGTH_MAX}}$`);

class CustomerBody {
  @IsDefined() @IsString() @IsNotEmpty() @MaxLength(STRING_LENGTH_MAX) name!: string;
  @IsDefined() @IsString() @Matches(PHONE, { message: `phone must be ${PHONE_LENGTH_MIN} to ${PHONE_LENGTH_MAX} digits, optionally after +` }) phone!: string;
  @IsDefined() @IsString() @Matches(PIN, { message: `pin must be a string of ${PIN_LENGTH_MIN} to ${PIN_LENGTH_MAX} digits` }) pin!: string;
  @IsDefined() @IsString() @IsNotEmpty() @IsSupportedCurrency() currency!: Currency;
}

/** A customer's new PIN, set by the back office (the customer forgot it, or the sign-in is locked until reset). */
class PinBody {
  @IsDefined() @IsString() @Matches(PIN, { message: `pin must be a string of ${PIN_LENGTH_MIN} to ${PIN_LENGTH_MAX} digits` }) pin!: string;
}

class BeneficiaryBody {
  @IsDefined() @IsString() @IsNotEmpty() @MaxLength(STRING_LENGTH_MAX) business!: string;
  @IsDefined() @IsString() @IsNotEmpty() @MaxLength(STRING_LENGTH_MAX) account_name!: string;
  @IsDefined() @IsString() @IsNotEmpty() @IsSupportedCurrency() currency!: Currency;
}

class CashPointBody {
  @IsDefined() @IsString() @IsNotEmpty() @MaxLength(STRING_LENGTH_MAX) name!: string;
  @IsDefined() @IsString() @IsNotEmpty() @MaxLength(CASH_POINT_ADDRESS_LENGTH_MAX) address!: string;
}

class TopupBody {
  @IsDefined() @IsString() @IsNotEmpty() @MaxLength(STRING_LENGTH_MAX) account!: string;
  @IsDefined() @IsAmount() amount!: number;
  @IsDefined() @IsString() @IsNotEmpty() @IsSupportedCurrency() currency!: Currency;
}

/**
 * A back-office resolution of a deposit under review: `accept_received` (no other field), or
 * `correct` with the recounted `amount_received` (an integer from 0, minor units).
 */
class ResolveDepositBody {
  @IsDefined() @IsString() @IsIn(['accept_received', 'correct']) resolution!: 'accept_received' | 'correct';
  @IsOptional() @IsInt(code('invalid_amount')) @Min(0, code('invalid_amount')) @Max(AMOUNT_MAX_MINOR, code('invalid_amount')) amount_received?: number;
}

const LEDGER_OWNER = new RegExp(`^(cus|conn|ben)_[A-Za-z0-9]{1,${ID_LENGTH_MAX}}$`);

/**
 * The admin API (contract section 7): the back office, and the stand-in for the service's own business
 * and agents' applications. Bearer ADMIN_API_KEY.
 */
@Controller('admin/v1')
@UseGuards(AdminGuard)
export class AdminController {
  constructor(
    @Inject(MESSAGE_BUS) private readonly bus: MessageBus,
    @Inject(CLOCK) private readonly clock: OffsetClock,
    private readonly directory: DirectoryRepository,
    private readonly keys: ApiKeysRepository,
    private readonly idempotency: IdempotencyStore,
    private readonly apiKeys: ApiKeyAuthenticator,
    private readonly signIns: SignInLimiter,
  ) {}

  @Returns(CreatedIntegratorResource, 'Create an integrator', { description: 'Answers the integrator with its first API key; the secret is shown only here.' })
  @JsonBody(NameBody)
  @Post('integrators')
  @HttpCode(201)
  @Audited('integrator.created')
  @Header('Cache-Control', NO_STORE) // the answer carries the key's secret
  async createIntegrator(@Creation() request: CreateRequest, @Audit() audit: AuditTrail): Promise<CreatedIntegratorResource> {
    const { name } = validateBody(NameBody, request.body);
    const key = checkIdempotencyKey(request.idempotencyKey);
    const call = { scope: 'admin', key, endpoint: 'POST /admin/v1/integrators', objectKind: 'integrator' as const, seal: secretSeal(request, key, 'api_key') };
    return this.idempotency.run(call, request, async (integratorId) => {
      const { integrator, apiKey, apiKeyId } = await this.directory.createIntegrator(name, this.now(), audit.record, integratorId);
      return { ...integrator, api_key: apiKey, api_key_id: apiKeyId };
    });
  }

  /** A read-only key for finance: every GET of the ledger and balances, nothing else. Shown only here. */
  @Returns(CreatedFinanceKeyResource, 'Create a finance key')
  @JsonBody(NameBody)
  @Post('finance_keys')
  @HttpCode(201)
  @Audited('api_key.created')
  @Header('Cache-Control', NO_STORE) // the answer carries the key's secret
  async createFinanceKey(@Creation() request: CreateRequest, @Audit() audit: AuditTrail): Promise<CreatedFinanceKeyResource> {
    const { name } = validateBody(NameBody, request.body);
    const key = checkIdempotencyKey(request.idempotencyKey);
    const call = { scope: 'admin', key, endpoint: 'POST /admin/v1/finance_keys', objectKind: 'apiKey' as const, seal: secretSeal(request, key, 'api_key') };
    return this.idempotency.run(call, request, async (keyId) => {
      const { secret } = await this.directory.createFinanceKey(name, this.now(), audit.record, keyId);
      return { id: keyId, object: 'api_key' as const, role: 'finance' as const, name, api_key: secret, status: 'active' as const };
    });
  }

  @Returns(CreatedApiKeyResource, 'Create an API key for an integrator')
  @Post('integrators/:id/api_keys')
  @HttpCode(201)
  @Audited('api_key.created')
  @Header('Cache-Control', NO_STORE) // the answer carries the key's secret
  async createApiKey(@Param('id') integratorId: string, @Creation() request: CreateRequest, @Audit() audit: AuditTrail): Promise<CreatedApiKeyResource> {
    requireEmptyBody(request.body);
    if (!(await this.directory.integratorExists(integratorId))) throw notFound('integrator', integratorId);
    const key = checkIdempotencyKey(request.idempotencyKey);
    const call = { scope: 'admin', key, endpoint: `POST /admin/v1/integrators/${integratorId}/api_keys`, objectKind: 'apiKey' as const, seal: secretSeal(request, key, 'api_key') };
    return this.idempotency.run(call, request, async (keyId) => {
      const { secret } = await this.directory.createApiKey(integratorId, this.now(), audit.record, keyId);
      return { id: keyId, object: 'api_key' as const, integrator: integratorId, scopes: ['*' as const], api_key: secret, status: 'active' as const };
    });
  }

  @Returns(RevokedKeyResource, 'Revoke an API key', { description: 'Answers 200 with the key, `revoked`, and `revoked_at`: an integrator’s key with its integrator, a finance key with `role: "finance"` (no scopes). The key then gets 401.' })
  @Post('api_keys/:id/revoke')
  @HttpCode(200)
  @Audited('api_key.revoked')
  async revokeApiKey(@Param('id') keyId: string, @Body() body: unknown, @Audit() audit: AuditTrail): Promise<RevokedKeyResource> {
    requireEmptyBody(body);
    const revoked = await this.keys.revokeAny(keyId, this.now(), audit.record);
    if (!revoked) throw new ServiceError('resource_not_found', `no such API key: '${keyId}'`, 'id');
    this.apiKeys.forget(keyId);
    return revoked;
  }

  @Returns(ConnectionResource, 'Create a connection')
  @JsonBody(ConnectionBody)
  @Post('connections')
  @HttpCode(201)
  @Audited('connection.created')
  async createConnection(@Creation() request: CreateRequest, @Audit() audit: AuditTrail): Promise<ConnectionResource> {
    const input = validateBody(ConnectionBody, request.body);
    if (!(await this.directory.integratorExists(input.integrator))) {
      throw new ServiceError('invalid_request', `no such integrator: '${input.integrator}'`, 'integrator');
    }
    const key = checkIdempotencyKey(request.idempotencyKey);
    return this.idempotency.run({ scope: 'admin', key, endpoint: 'POST /admin/v1/connections', objectKind: 'connection' }, request, async (id) => {
      // The account first: a crash in between leaves an unused account, never a connection without one.
      await this.bus.request('ledger.open-account', { owner: id, kind: 'connection', currency: input.currency });
      return this.directory.createConnection({ id, integratorId: input.integrator, kind: input.kind, name: input.name, currency: input.currency }, this.now(), audit.record);
    });
  }

  @Returns(CustomerResource, 'Create a customer')
  @JsonBody(CustomerBody)
  @Post('customers')
  @HttpCode(201)
  @Audited('customer.created')
  async createCustomer(@Creation() request: CreateRequest, @Audit() audit: AuditTrail): Promise<CustomerResource> {
    const input = validateBody(CustomerBody, request.body);
    const key = checkIdempotencyKey(request.idempotencyKey);
    // The body holds the PIN: its stored digest is keyed, so the database holds nothing to test PINs against.
    const call = { scope: 'admin', key, endpoint: 'POST /admin/v1/customers', objectKind: 'customer' as const, bodyKey: bodyKey(request, key) };
    return this.idempotency.run(call, request, async (id) => {
      await this.bus.request('ledger.open-account', { owner: id, kind: 'customer', currency: input.currency });
      return this.directory.createCustomer({ id, ...input }, this.now(), audit.record);
    });
  }

  @Returns(CustomerResource, 'Reset a customer’s PIN', {
    description: 'Sets a new PIN and lifts every sign-in lock on the customer’s phone, the lasting one (after repeated locks) included; the customer’s open hosted sessions end.',
  })
  @JsonBody(PinBody)
  @Post('customers/:id/reset_pin')
  @HttpCode(200)
  @Audited('customer.pin_reset', { repeatable: true })
  async resetCustomerPin(@Param('id') customerId: string, @Body() body: unknown, @Audit() audit: AuditTrail): Promise<CustomerResource> {
    const { pin } = validateBody(PinBody, body);
    const customer = await this.directory.resetCustomerPin(customerId, pin, audit.record);
    if (!customer) throw notFound('customer', customerId);
    // The new PIN first: a crash in between leaves the phone locked, never the old PIN unlocked.
    await this.signIns.reset(customerSignInLogins(customer.phone));
    return customer;
  }

  @Returns(AdminBeneficiaryResource, 'Create a beneficiary')
  @JsonBody(BeneficiaryBody)
  @Post('beneficiaries')
  @HttpCode(201)
  @Audited('beneficiary.created')
  async createBeneficiary(@Creation() request: CreateRequest, @Audit() audit: AuditTrail) {
    const input = validateBody(BeneficiaryBody, request.body);
    const business = await this.directory.findConnection(input.business);
    if (!business || business.kind !== 'business') throw new ServiceError('invalid_request', `no such business connection: '${input.business}'`, 'business');
    const key = checkIdempotencyKey(request.idempotencyKey);
    return this.idempotency.run({ scope: 'admin', key, endpoint: 'POST /admin/v1/beneficiaries', objectKind: 'beneficiary' }, request, async (beneficiaryId) => {
      await audit.intend({ object: 'beneficiary', id: beneficiaryId }, {}, business.integratorId);
      return this.bus.request('supplier-payments.beneficiaries.create', {
        beneficiaryId,
        business: business.id,
        integratorId: business.integratorId,
        accountName: input.account_name,
        currency: input.currency,
      });
    });
  }

  @Returns(AdminBeneficiaryResource, 'Revoke a beneficiary')
  @Post('beneficiaries/:id/revoke')
  @HttpCode(200)
  @Audited('beneficiary.revoked')
  async revokeBeneficiary(@Param('id') id: string, @Body() body: unknown, @Audit() audit: AuditTrail) {
    requireEmptyBody(body);
    await audit.intend({ object: 'beneficiary', id });
    return this.bus.request('supplier-payments.beneficiaries.revoke', { beneficiaryId: id });
  }

  @Returns(CashPointResource, 'Create a cash point')
  @JsonBody(CashPointBody)
  @Post('cash_points')
  @HttpCode(201)
  @Audited('cash_point.created')
  async createCashPoint(@Creation() request: CreateRequest, @Audit() audit: AuditTrail) {
    const input = validateBody(CashPointBody, request.body);
    const key = checkIdempotencyKey(request.idempotencyKey);
    return this.idempotency.run({ scope: 'admin', key, endpoint: 'POST /admin/v1/cash_points', objectKind: 'cashPoint' }, request, async (cashPointId) => {
      await audit.intend({ object: 'cash_point', id: cashPointId });
      return this.bus.request('cash.cash-points.create', { cashPointId, ...input });
    });
  }

  @Returns(TopupResource, 'Top up an account')
  @JsonBody(TopupBody)
  @Post('topups')
  @HttpCode(201)
  @Audited('topup.created')
  async createTopup(@Creation() request: CreateRequest, @Audit() audit: AuditTrail): Promise<TopupResource> {
    const input = validateBody(TopupBody, request.body);
    if (!LEDGER_OWNER.test(input.account)) throw new ServiceError('invalid_request', 'account must be a cus_, conn_ or ben_ id', 'account');
    const key = checkIdempotencyKey(request.idempotencyKey);
    return this.idempotency.run({ scope: 'admin', key, endpoint: 'POST /admin/v1/topups', objectKind: 'topup' }, request, async (topupId) => {
      // The account names the top-up's integrator (a connection's) when the sweeper reads it back.
      await audit.intend({ object: 'topup', id: topupId }, { account: input.account });
      return this.bus.request('ledger.topup', { topupId, owner: input.account, amount: input.amount, currency: input.currency });
    });
  }

  /**
   * The back office resolves a deposit under review: `{"resolution": "accept_received"}` settles with
   * the amount received as the gross; `{"resolution": "correct", "amount_received": N}` records the
   * recount (the exact amount settles, any other stays under review). Not under review: invalid_status.
   */
  @Returns(CollectionResource, 'Resolve a deposit under review')
  @JsonBody(ResolveDepositBody)
  @Post('collections/:id/resolve_deposit')
  @HttpCode(200)
  // A correction may be made again while the deposit stays under review: each request is its own event.
  @Audited('collection.deposit_resolved', { repeatable: true })
  async resolveDeposit(@Param('id') collectionId: string, @Body() body: unknown, @Audit() audit: AuditTrail): Promise<CollectionResource> {
    const input = validateBody(ResolveDepositBody, body);
    const target = { object: 'collection', id: collectionId };
    if (input.resolution === 'accept_received') {
      if (input.amount_received !== undefined) throw new ServiceError('invalid_request', 'accept_received takes no amount_received', 'amount_received');
      // What the collection shows once resolved: how the sweeper tells, after a crash, that it was.
      await audit.intend(target, { resolution: 'accept_received' });
      return this.bus.request('collections.resolve-deposit', { collectionId, resolution: 'accept_received' }, { timeoutMs: SETTLEMENT_REQUEST_TIMEOUT_MS });
    }
    if (input.amount_received === undefined) throw new ServiceError('invalid_request', 'amount_received is required to correct the count', 'amount_received');
    await audit.intend(target, { resolution: 'correct', amount_received: input.amount_received });
    return this.bus.request('collections.resolve-deposit', { collectionId, resolution: 'correct', amountReceived: input.amount_received }, { timeoutMs: SETTLEMENT_REQUEST_TIMEOUT_MS });
  }

  private now(): Date {
    return this.clock.now();
  }
}
