import { CASH_MIGRATIONS, CashModule } from '@pay/cash-feature';
import { EnvReader } from '@pay/kernel';
import { readHostConfig, runMain, startInfrastructure, startNestHost } from '@pay/runtime';

/** The cash app alone: cash points and cash checkout; /health, /ready and /metrics on PORT. */
runMain(async () => {
  const read = new EnvReader(process.env);
  const host = readHostConfig(read);
  read.done();
  const infrastructure = await startInfrastructure(host, { app: 'cash', migrations: [CASH_MIGRATIONS] });
  return startNestHost({
    name: 'cash',
    infrastructure,
    modules: [CashModule.forRoot({ publicBaseUrl: host.publicBaseUrl })],
    config: host,
  });
});
