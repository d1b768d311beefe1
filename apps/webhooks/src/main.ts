import { EnvReader } from '@pay/kernel';
import { readHostConfig, runMain, startInfrastructure, startNestHost } from '@pay/runtime';
import { WEBHOOKS_MIGRATIONS, WebhooksModule } from '@pay/webhooks-feature';

/** The webhooks app alone: events, endpoints and signed deliveries; /health, /ready and /metrics on PORT. */
runMain(async () => {
  const read = new EnvReader(process.env);
  const host = readHostConfig(read);
  read.done();
  const infrastructure = await startInfrastructure(host, { app: 'webhooks', migrations: [WEBHOOKS_MIGRATIONS] });
  return startNestHost({
    name: 'webhooks',
    infrastructure,
    modules: [WebhooksModule.forRoot({ sandbox: host.sandbox })],
    config: host,
  });
});
