import { HttpClient, type ClientOptions, type RequestOptions } from './http';
import { ListCall } from './pagination';
import { webhooks } from './webhooks';
import type {
  BankAccount,
  BankAccountCreateParams,
  BankAccountListParams,
  Payout,
  PayoutCreateParams,
  PayoutListParams,
  ApiKey,
  ApiKeyCreateParams,
  ApiKeyRollParams,
  ApiKeyWithSecret,
  AuditEvent,
  AuditEventListParams,
  Balance,
  BalanceTransaction,
  BalanceTransactionListParams,
  Beneficiary,
  BeneficiaryRetrieveParams,
  CashPayment,
  CashPaymentCreateParams,
  CashPaymentListParams,
  Clock,
  Collection,
  CollectionCreateParams,
  CollectionListParams,
  DeletedWebhookEndpoint,
  EndpointDelivery,
  EndpointDeliveryListParams,
  Event,
  EventDelivery,
  EventListParams,
  HandoverCode,
  ListParams,
  Payment,
  PaymentCreateParams,
  PaymentListParams,
  Recovery,
  Refund,
  RefundCreateParams,
  RefundListParams,
  SupplierPayment,
  SupplierPaymentCreateParams,
  SupplierPaymentListParams,
  WebhookEndpoint,
  WebhookEndpointCreateParams,
  WebhookEndpointRecoverParams,
  WebhookEndpointUpdateParams,
} from './types';

const id = (value: string): string => {
  if (typeof value !== 'string' || value === '') throw new TypeError('an id is required');
  return encodeURIComponent(value);
};

abstract class Resource {
  constructor(protected readonly http: HttpClient) {}
}

/** Bank accounts for payouts: the full IBAN is answered by `create` only. */
export class BankAccountsResource extends Resource {
  create(params: BankAccountCreateParams, options?: RequestOptions): Promise<BankAccount> {
    return this.http.request({ method: 'POST', path: '/v1/bank_accounts', body: params, idempotent: true }, options);
  }
  retrieve(bankAccountId: string, options?: RequestOptions): Promise<BankAccount> {
    return this.http.request({ method: 'GET', path: `/v1/bank_accounts/${id(bankAccountId)}` }, options);
  }
  list(params: BankAccountListParams = {}, options?: RequestOptions): ListCall<BankAccount, BankAccountListParams> {
    return new ListCall(this.http, '/v1/bank_accounts', params, options);
  }
}

/** Payouts to a bank account: `pending` at once (the balance debited), cancel while pending. */
export class PayoutsResource extends Resource {
  create(params: PayoutCreateParams, options?: RequestOptions): Promise<Payout> {
    return this.http.request({ method: 'POST', path: '/v1/payouts', body: params, idempotent: true }, options);
  }
  retrieve(payoutId: string, options?: RequestOptions): Promise<Payout> {
    return this.http.request({ method: 'GET', path: `/v1/payouts/${id(payoutId)}` }, options);
  }
  list(params: PayoutListParams = {}, options?: RequestOptions): ListCall<Payout, PayoutListParams> {
    return new ListCall(this.http, '/v1/payouts', params, options);
  }
  cancel(payoutId: string, options?: RequestOptions): Promise<Payout> {
    return this.http.request({ method: 'POST', path: `/v1/payouts/${id(payoutId)}/cancel` }, options);
  }
}

/** Pay: `POST /v1/payments` (Idempotency-Key required: the SDK always sends one), retrieve, list, cancel. */
export class PaymentsResource extends Resource {
  create(params: PaymentCreateParams, options?: RequestOptions): Promise<Payment> {
    return this.http.request({ method: 'POST', path: '/v1/payments', body: params, idempotent: true }, options);
  }
  retrieve(paymentId: string, options?: RequestOptions): Promise<Payment> {
    return this.http.request({ method: 'GET', path: `/v1/payments/${id(paymentId)}` }, options);
  }
  list(params: PaymentListParams = {}, options?: RequestOptions): ListCall<Payment, PaymentListParams> {
    return new ListCall(this.http, '/v1/payments', params, options);
  }
  cancel(paymentId: string, options?: RequestOptions): Promise<Payment> {
    return this.http.request({ method: 'POST', path: `/v1/payments/${id(paymentId)}/cancel` }, options);
  }
}

export class CashPaymentsResource extends Resource {
  create(params: CashPaymentCreateParams, options?: RequestOptions): Promise<CashPayment> {
    return this.http.request({ method: 'POST', path: '/v1/cash_payments', body: params, idempotent: true }, options);
  }
  retrieve(cashPaymentId: string, options?: RequestOptions): Promise<CashPayment> {
    return this.http.request({ method: 'GET', path: `/v1/cash_payments/${id(cashPaymentId)}` }, options);
  }
  list(params: CashPaymentListParams = {}, options?: RequestOptions): ListCall<CashPayment, CashPaymentListParams> {
    return new ListCall(this.http, '/v1/cash_payments', params, options);
  }
  cancel(cashPaymentId: string, options?: RequestOptions): Promise<CashPayment> {
    return this.http.request({ method: 'POST', path: `/v1/cash_payments/${id(cashPaymentId)}/cancel` }, options);
  }
}

export class SupplierPaymentsResource extends Resource {
  create(params: SupplierPaymentCreateParams, options?: RequestOptions): Promise<SupplierPayment> {
    return this.http.request({ method: 'POST', path: '/v1/supplier_payments', body: params, idempotent: true }, options);
  }
  retrieve(supplierPaymentId: string, options?: RequestOptions): Promise<SupplierPayment> {
    return this.http.request({ method: 'GET', path: `/v1/supplier_payments/${id(supplierPaymentId)}` }, options);
  }
  list(params: SupplierPaymentListParams = {}, options?: RequestOptions): ListCall<SupplierPayment, SupplierPaymentListParams> {
    return new ListCall(this.http, '/v1/supplier_payments', params, options);
  }
  cancel(supplierPaymentId: string, options?: RequestOptions): Promise<SupplierPayment> {
    return this.http.request({ method: 'POST', path: `/v1/supplier_payments/${id(supplierPaymentId)}/cancel` }, options);
  }
}

export class BeneficiariesResource extends Resource {
  retrieve(beneficiaryId: string, params: BeneficiaryRetrieveParams, options?: RequestOptions): Promise<Beneficiary> {
    return this.http.request({ method: 'GET', path: `/v1/beneficiaries/${id(beneficiaryId)}`, query: { ...params } }, options);
  }
}

export class CollectionsResource extends Resource {
  create(params: CollectionCreateParams, options?: RequestOptions): Promise<Collection> {
    return this.http.request({ method: 'POST', path: '/v1/collections', body: params, idempotent: true }, options);
  }
  retrieve(collectionId: string, options?: RequestOptions): Promise<Collection> {
    return this.http.request({ method: 'GET', path: `/v1/collections/${id(collectionId)}` }, options);
  }
  list(params: CollectionListParams = {}, options?: RequestOptions): ListCall<Collection, CollectionListParams> {
    return new ListCall(this.http, '/v1/collections', params, options);
  }
  /** The code the recipient (wholesaler) hands over with the cash. */
  handoverCode(collectionId: string, options?: RequestOptions): Promise<HandoverCode> {
    return this.http.request({ method: 'GET', path: `/v1/collections/${id(collectionId)}/handover_code` }, options);
  }
}

export class RefundsResource extends Resource {
  create(params: RefundCreateParams, options?: RequestOptions): Promise<Refund> {
    return this.http.request({ method: 'POST', path: '/v1/refunds', body: params, idempotent: true }, options);
  }
  retrieve(refundId: string, options?: RequestOptions): Promise<Refund> {
    return this.http.request({ method: 'GET', path: `/v1/refunds/${id(refundId)}` }, options);
  }
  list(params: RefundListParams = {}, options?: RequestOptions): ListCall<Refund, RefundListParams> {
    return new ListCall(this.http, '/v1/refunds', params, options);
  }
}

export class BalancesResource extends Resource {
  /** The balance of one of your connections. */
  retrieve(connection: string, options?: RequestOptions): Promise<Balance> {
    return this.http.request({ method: 'GET', path: `/v1/balances/${id(connection)}` }, options);
  }
}

export class BalanceTransactionsResource extends Resource {
  list(params: BalanceTransactionListParams, options?: RequestOptions): ListCall<BalanceTransaction, BalanceTransactionListParams> {
    return new ListCall(this.http, '/v1/balance_transactions', params, options);
  }
  retrieve(transactionId: string, options?: RequestOptions): Promise<BalanceTransaction> {
    return this.http.request({ method: 'GET', path: `/v1/balance_transactions/${id(transactionId)}` }, options);
  }
}

export class EventsResource extends Resource {
  list(params: EventListParams = {}, options?: RequestOptions): ListCall<Event, EventListParams> {
    return new ListCall(this.http, '/v1/events', params, options);
  }
  retrieve(eventId: string, options?: RequestOptions): Promise<Event> {
    return this.http.request({ method: 'GET', path: `/v1/events/${id(eventId)}` }, options);
  }
  /** Sends the event again to your matching endpoints: same id and body, a fresh timestamp. */
  redeliver(eventId: string, options?: RequestOptions): Promise<Event> {
    return this.http.request({ method: 'POST', path: `/v1/events/${id(eventId)}/redeliver` }, options);
  }
  /** The event's deliveries and their attempts, oldest first (paginated like every list). */
  deliveries(eventId: string, params: ListParams = {}, options?: RequestOptions): ListCall<EventDelivery, ListParams> {
    return new ListCall(this.http, `/v1/events/${id(eventId)}/deliveries`, params, options);
  }
}

export class WebhookEndpointsResource extends Resource {
  /** The answer carries the endpoint's `secret`, shown only here and by rotateSecret. */
  create(params: WebhookEndpointCreateParams, options?: RequestOptions): Promise<WebhookEndpoint> {
    return this.http.request({ method: 'POST', path: '/v1/webhook_endpoints', body: params, idempotent: true }, options);
  }
  retrieve(endpointId: string, options?: RequestOptions): Promise<WebhookEndpoint> {
    return this.http.request({ method: 'GET', path: `/v1/webhook_endpoints/${id(endpointId)}` }, options);
  }
  list(params: ListParams = {}, options?: RequestOptions): ListCall<WebhookEndpoint> {
    return new ListCall(this.http, '/v1/webhook_endpoints', params, options);
  }
  update(endpointId: string, params: WebhookEndpointUpdateParams, options?: RequestOptions): Promise<WebhookEndpoint> {
    return this.http.request({ method: 'POST', path: `/v1/webhook_endpoints/${id(endpointId)}`, body: params }, options);
  }
  delete(endpointId: string, options?: RequestOptions): Promise<DeletedWebhookEndpoint> {
    return this.http.request({ method: 'DELETE', path: `/v1/webhook_endpoints/${id(endpointId)}` }, options);
  }
  /** A new secret (in the answer, shown once); for 24 hours deliveries carry a signature for each secret. */
  rotateSecret(endpointId: string, options?: RequestOptions): Promise<WebhookEndpoint> {
    return this.http.request({ method: 'POST', path: `/v1/webhook_endpoints/${id(endpointId)}/rotate_secret` }, options);
  }
  deliveries(endpointId: string, params: EndpointDeliveryListParams = {}, options?: RequestOptions): ListCall<EndpointDelivery, EndpointDeliveryListParams> {
    return new ListCall(this.http, `/v1/webhook_endpoints/${id(endpointId)}/deliveries`, params, options);
  }
  /** Sends again every failed delivery of the endpoint whose event was created at or after `since`. */
  recover(endpointId: string, params: WebhookEndpointRecoverParams, options?: RequestOptions): Promise<Recovery> {
    const since = params.since instanceof Date ? params.since.toISOString() : params.since;
    return this.http.request({ method: 'POST', path: `/v1/webhook_endpoints/${id(endpointId)}/recover`, body: { since } }, options);
  }
}

/**
 * The integrator's API keys (a `["*"]` key only). Creating and rolling send an `Idempotency-Key` as
 * every create does: a retry, or a repeat with the same key, answers the same key and secret.
 */
export class ApiKeysResource extends Resource {
  create(params: ApiKeyCreateParams, options?: RequestOptions): Promise<ApiKeyWithSecret> {
    return this.http.request({ method: 'POST', path: '/v1/api_keys', body: params, idempotent: true }, options);
  }
  retrieve(keyId: string, options?: RequestOptions): Promise<ApiKey> {
    return this.http.request({ method: 'GET', path: `/v1/api_keys/${id(keyId)}` }, options);
  }
  list(params: ListParams = {}, options?: RequestOptions): ListCall<ApiKey> {
    return new ListCall(this.http, '/v1/api_keys', params, options);
  }
  /** A new key with the same name, scopes and `expires_at`; the old one works `expires_in` seconds more (at most until its own `expires_at`). */
  roll(keyId: string, params: ApiKeyRollParams = {}, options?: RequestOptions): Promise<ApiKeyWithSecret> {
    return this.http.request({ method: 'POST', path: `/v1/api_keys/${id(keyId)}/roll`, body: params, idempotent: true }, options);
  }
  revoke(keyId: string, options?: RequestOptions): Promise<ApiKey> {
    return this.http.request({ method: 'POST', path: `/v1/api_keys/${id(keyId)}/revoke` }, options);
  }
}

/** The integrator's audit trail (a `["*"]` key only), newest first. */
export class AuditEventsResource extends Resource {
  list(params: AuditEventListParams = {}, options?: RequestOptions): ListCall<AuditEvent, AuditEventListParams> {
    return new ListCall(this.http, '/v1/audit_events', params, options);
  }
}

/** Sandbox only (SANDBOX=true): what the customer, the approver or the cash agent would do. */
export class TestHelpers extends Resource {
  readonly payments = {
    /** The customer authorizes: `succeeded`, or `declined` (insufficient_balance). */
    authorize: (paymentId: string, params: { customer: string }, options?: RequestOptions): Promise<Payment> =>
      this.http.request({ method: 'POST', path: `/v1/test_helpers/payments/${id(paymentId)}/authorize`, body: params }, options),
    decline: (paymentId: string, options?: RequestOptions): Promise<Payment> =>
      this.http.request({ method: 'POST', path: `/v1/test_helpers/payments/${id(paymentId)}/decline` }, options),
  };
  readonly cashPayments = {
    /** The cash agent takes the exact amount at a cash point. */
    pay: (cashPaymentId: string, params: { cash_point: string; amount: number }, options?: RequestOptions): Promise<CashPayment> =>
      this.http.request({ method: 'POST', path: `/v1/test_helpers/cash_payments/${id(cashPaymentId)}/pay`, body: params }, options),
  };
  readonly supplierPayments = {
    approve: (supplierPaymentId: string, options?: RequestOptions): Promise<SupplierPayment> =>
      this.http.request({ method: 'POST', path: `/v1/test_helpers/supplier_payments/${id(supplierPaymentId)}/approve` }, options),
    reject: (supplierPaymentId: string, options?: RequestOptions): Promise<SupplierPayment> =>
      this.http.request({ method: 'POST', path: `/v1/test_helpers/supplier_payments/${id(supplierPaymentId)}/reject` }, options),
  };
  readonly collections = {
    confirmHandover: (collectionId: string, options?: RequestOptions): Promise<Collection> =>
      this.http.request({ method: 'POST', path: `/v1/test_helpers/collections/${id(collectionId)}/confirm_handover` }, options),
    /** What the cash agent counted, in minor units (0 or more). */
    validateDeposit: (collectionId: string, params: { amount_received: number }, options?: RequestOptions): Promise<Collection> =>
      this.http.request({ method: 'POST', path: `/v1/test_helpers/collections/${id(collectionId)}/validate_deposit`, body: params }, options),
  };
  readonly clock = {
    retrieve: (options?: RequestOptions): Promise<Clock> => this.http.request({ method: 'GET', path: '/v1/test_helpers/clock' }, options),
    /** Moves the service clock forward by `seconds`; deadlines now passed are applied before the answer. */
    advance: (params: { seconds: number }, options?: RequestOptions): Promise<Clock> =>
      this.http.request({ method: 'POST', path: '/v1/test_helpers/clock/advance', body: params }, options),
  };
}

export type PaymentsOptions = ClientOptions;

/**
 * The client of the /v1 API.
 *
 * ```ts
 * const client = new Payments({ apiKey: process.env.PAY_API_KEY!, baseUrl: 'https://api.pay.example' });
 * const payment = await client.payments.create({ amount: 1_250_000, currency: 'DZD', order_reference: '1001', merchant_connection, return_url });
 * ```
 */
export class Payments {
  readonly payments: PaymentsResource;
  readonly cashPayments: CashPaymentsResource;
  readonly supplierPayments: SupplierPaymentsResource;
  readonly beneficiaries: BeneficiariesResource;
  readonly collections: CollectionsResource;
  readonly refunds: RefundsResource;
  readonly bankAccounts: BankAccountsResource;
  readonly payouts: PayoutsResource;
  readonly balances: BalancesResource;
  readonly balanceTransactions: BalanceTransactionsResource;
  readonly events: EventsResource;
  readonly webhookEndpoints: WebhookEndpointsResource;
  readonly apiKeys: ApiKeysResource;
  readonly auditEvents: AuditEventsResource;
  readonly testHelpers: TestHelpers;
  /** Signature verification of the deliveries your endpoint receives (no API call). */
  readonly webhooks = webhooks;

  constructor(options: PaymentsOptions) {
    const http = new HttpClient(options);
    this.payments = new PaymentsResource(http);
    this.cashPayments = new CashPaymentsResource(http);
    this.supplierPayments = new SupplierPaymentsResource(http);
    this.beneficiaries = new BeneficiariesResource(http);
    this.collections = new CollectionsResource(http);
    this.refunds = new RefundsResource(http);
    this.bankAccounts = new BankAccountsResource(http);
    this.payouts = new PayoutsResource(http);
    this.balances = new BalancesResource(http);
    this.balanceTransactions = new BalanceTransactionsResource(http);
    this.events = new EventsResource(http);
    this.webhookEndpoints = new WebhookEndpointsResource(http);
    this.apiKeys = new ApiKeysResource(http);
    this.auditEvents = new AuditEventsResource(http);
    this.testHelpers = new TestHelpers(http);
  }
}
