import { EnvReader } from '@pay/kernel';
import { Logger } from '@nestjs/common';
import { GATEWAY_MIGRATIONS, GatewayModule, readGatewayConfig, startNotice } from '@pay/gateway-feature';
import { embedsDatabase, readHostConfig, runMain, startInfrastructure, startNestHost } from '@pay/runtime';

/** The gateway alone: the public HTTP API, the admin API and the hosted pages; the other apps over Kafka. */
runMain(async () => {
  const read = new EnvReader(process.env);
  const host = readHostConfig(read);
  const gateway = readGatewayConfig(read, { ...host, embeddedDatabase: embedsDatabase(host, 'gateway') });
  const infrastructure = await startInfrastructure(host, { app: 'gateway', migrations: [GATEWAY_MIGRATIONS] });
  const running = await startNestHost({
    name: 'gateway',
    infrastructure,
    modules: [GatewayModule.forRoot(gateway)],
    config: host,
  });
  new Logger('gateway').log(startNotice(gateway, host.dataDir, process.env));
  return running;
});
