/** The reference webhook receiver: verify, store, answer 2xx, then process each event once. */
export { startReceiver, type ReceiverOptions, type RunningReceiver } from './receiver';
export { readConfig, ConfigError, type ReceiverConfig } from './config';
export { Orders, AttemptRefusedError, type NewOrder } from './orders';
export type { Order, Attempt, OrderStatus, Kind } from './model';
