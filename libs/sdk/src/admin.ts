import { HttpClient, type ClientOptions, type RequestOptions } from './http';
import { ListCall } from './pagination';
import type {
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
  readonly auditEvents: AdminAuditEventsResource;

  constructor(options: PaymentsAdminOptions) {
    if (!options.adminKey) throw new TypeError('adminKey is required');
    const { adminKey, ...rest } = options;
    const http = new HttpClient({ ...rest, apiKey: adminKey });
    this.operations = new OperationsResource(http);
    this.auditEvents = new AdminAuditEventsResource(http);
  }
}
