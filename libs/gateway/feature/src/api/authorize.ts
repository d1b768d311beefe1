import { batchingRequest, toOutcomes, type MessageBus } from '@pay/bus';
import type { AuthorizePaymentRequest, PaymentResource } from '@pay/contracts';
import { AUTHORIZE_BATCH_MAX, AUTHORIZE_GATHER_MS } from '@pay/kernel';

/**
 * `payments.authorize`, as the test helper and the hosted page send it: over Kafka, the authorizations
 * that arrive while one is in flight leave together as one `payments.authorize-batch`, each answered
 * with its own payment or error (batchingRequest).
 */
export const authorizeWith = (bus: MessageBus): ((request: AuthorizePaymentRequest) => Promise<PaymentResource>) =>
  batchingRequest(bus, 'payments.authorize', {
    topic: 'payments.authorize-batch',
    request: (requests) => ({ requests }),
    outcomes: ({ outcomes }) => toOutcomes(outcomes),
    max: AUTHORIZE_BATCH_MAX,
    gatherMs: AUTHORIZE_GATHER_MS,
  });
