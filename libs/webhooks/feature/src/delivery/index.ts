export { classifyAddress, describeAddress, type AddressClass, type AddressDescription } from './address-class';
export {
  AddressRefusedError,
  checkEndpointUrl,
  guardedLookup,
  type EndpointUrlCheck,
} from './url-guard';
export { closeWebhookConnections, newWebhookSecret, sendWebhook, type DeliveryResult, type WebhookRequest } from './webhook-sender';
