export { classifyAddress, describeAddress, type AddressClass, type AddressDescription } from './address-class';
export {
  AddressRefusedError,
  checkEndpointUrl,
  DNS_LOOKUP_TIMEOUT_MS,
  ENDPOINT_URL_LENGTH_MAX,
  guardedLookup,
  type EndpointUrlCheck,
} from './url-guard';
export {
  DELIVERY_TIMEOUT_MS,
  newWebhookSecret,
  RESPONSE_READ_BYTES_MAX,
  sendWebhook,
  type DeliveryResult,
  type WebhookRequest,
} from './webhook-sender';
