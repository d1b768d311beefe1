import type { MessageKey, MessageParams } from '@pay/hosted-ui';

/** A line above a console page's content: what an action did, or why it was refused. */
export interface Notice {
  kind: 'error' | 'success';
  key: MessageKey;
  params?: MessageParams;
}
