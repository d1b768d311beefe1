import { Logger } from '@nestjs/common';
import { startNotice } from '@pay/gateway-feature';
import { runMain } from '@pay/runtime';
import { readConfig } from './config';
import { startService } from './service';

/** `npm start`: the whole service in one process. SIGTERM or SIGINT shuts it down gracefully. */
runMain(async () => {
  const config = readConfig();
  const service = await startService(config);
  new Logger('all-in-one').log(startNotice(config.gateway, config.host.dataDir, process.env));
  return service;
});
