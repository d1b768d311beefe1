import { HttpClient, type ClientOptions, type RequestOptions } from './http';
import { ListCall } from './pagination';
import type {
  BankStatementImport,
  PayoutBatch,
  AdminAuditEventListParams,
  AuditEvent,
  EndpointHealth,
  FailedDelivery,
  FailedDeliveryListParams,
  List,
  OperationsList,
  ParkedEvent,
  ParkedEventReplay,
  ParkedEventReplayParams,
  RedeliverFailedParams,
  Redelivery,
  Subscription,
} from './types';

/** The operator's view of the background work: `/admin/v1/operations`. */
export class OperationsResource {
  constructor(private readonly http: HttpClient) {}

  /** Every app's catch-up subscriptions with checkpoint, lag and parked count; apps that did not answer in `errors`. */
  subscriptions(options?: RequestOptions): Promise<OperationsList<Subscription>> {
    return this.http.request({ method: 'GET', path: '/admin/v1/operations/subscriptions' }, options);
  }
  /** The newest parked events of every app, at most `limit` (1 to 100, default 10). */
  parkedEvents(params: { limit?: number } = {}, options?: RequestOptions): Promise<OperationsList<ParkedEvent>> {
    return this.http.request({ method: 'GET', path: '/admin/v1/operations/parked_events', query: { ...params } }, options);
  }
  /** Handles parked events again: one, a subscription's, or every one. */
  replayParked(params: ParkedEventReplayParams = {}, options?: RequestOptions): Promise<ParkedEventReplay> {
    return this.http.request({ method: 'POST', path: '/admin/v1/operations/parked_events/replay', body: params }, options);
  }
  /** Deliveries given up (`failed`) or failing (`retrying`), newest first. */
  failedDeliveries(params: FailedDeliveryListParams = {}, options?: RequestOptions): ListCall<FailedDelivery, FailedDeliveryListParams> {
    return new ListCall(this.http, '/admin/v1/operations/failed_deliveries', params, options);
  }
  /** Every failed delivery (of one endpoint, or all) sent again now, same event id and body; a repeat sends none. */
  redeliverFailed(params: RedeliverFailedParams = {}, options?: RequestOptions): Promise<Redelivery> {
    return this.http.request({ method: 'POST', path: '/admin/v1/operations/failed_deliveries/redeliver', body: params }, options);
  }
  /** Enabled endpoints currently failing, oldest failure first; `flagged` past an hour. */
  failingEndpoints(params: { limit?: number } = {}, options?: RequestOptions): Promise<List<EndpointHealth>> {
    return this.http.request({ method: 'GET', path: '/admin/v1/operations/failing_endpoints', query: { ...params } }, options);
  }
}

/** Finance's side of payouts: batches, their pain.001 file for the bank, the bank's camt.053 statements. */
export class PayoutBatchesResource {
  constructor(private readonly http: HttpClient) {}

  /** Every pending payout of the currency, now in transit (`count` 0 when there is none). */
  create(params: { currency: PayoutBatch['currency'] }, options?: RequestOptions): Promise<PayoutBatch> {
    return this.http.request({ method: 'POST', path: '/admin/v1/payout_batches', body: params, idempotent: true }, options);
  }
  /** The batch's pain.001.001.09 credit-transfer file, as its XML text. */
  file(batchId: string, options?: RequestOptions): Promise<string> {
    return this.http.request({ method: 'GET', path: `/admin/v1/payout_batches/${encodeURIComponent(batchId)}/file`, textAnswer: true }, options);
  }
}

export class BankStatementsResource {
  constructor(private readonly http: HttpClient) {}

  /** Imports a camt.053.001.08 statement (its XML text): payouts paid or returned, what did not match, `duplicate` for a statement seen before. */
  import(xml: string, options?: RequestOptions): Promise<BankStatementImport> {
    // Safe to repeat: a statement already imported applies nothing.
    return this.http.request({ method: 'POST', path: '/admin/v1/bank_statements', xmlBody: xml, idempotent: true }, options);
  }
}

/** Every integrator's audit trail (the admin key or a finance key), newest first. */
export class AdminAuditEventsResource {
  constructor(private readonly http: HttpClient) {}

  list(params: AdminAuditEventListParams = {}, options?: RequestOptions): ListCall<AuditEvent, AdminAuditEventListParams> {
    return new ListCall(this.http, '/admin/v1/audit_events', params, options);
  }
}

export type PaymentsAdminOptions = Omit<ClientOptions, 'apiKey'> & {
  /** The service's admin key (`ADMIN_API_KEY`): never an integrator's. */
  adminKey: string;
};

/**
 * The client of the admin API, for the platform's operators (not integrators).
 *
 * ```ts
 * const admin = new PaymentsAdmin({ adminKey: process.env.PAY_ADMIN_KEY!, baseUrl: 'https://api.pay.example' });
 * const { redelivered } = await admin.operations.redeliverFailed({ endpoint_id: 'we_…' });
 * ```
 */
export class PaymentsAdmin {
  readonly operations: OperationsResource;
  readonly payoutBatches: PayoutBatchesResource;
  readonly bankStatements: BankStatementsResource;
  readonly auditEvents: AdminAuditEventsResource;

  constructor(options: PaymentsAdminOptions) {
    if (!options.adminKey) throw new TypeError('adminKey is required');
    const { adminKey, ...rest } = options;
    const http = new HttpClient({ ...rest, apiKey: adminKey });
    this.operations = new OperationsResource(http);
    this.payoutBatches = new PayoutBatchesResource(http);
    this.bankStatements = new BankStatementsResource(http);
    this.auditEvents = new AdminAuditEventsResource(http);
  }
}
