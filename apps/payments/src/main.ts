import { EnvReader } from '@pay/kernel';
import { PAYMENTS_MIGRATIONS, paymentsConfig, PaymentsModule } from '@pay/payments-feature';
import { readHostConfig, runMain, startInfrastructure, startNestHost } from '@pay/runtime';

/** The payments app alone: the payment aggregate, its projection, relay and sweeps; /health, /ready and /metrics on PORT. */
runMain(async () => {
  const read = new EnvReader(process.env);
  const host = readHostConfig(read);
  read.done();
  const infrastructure = await startInfrastructure(host, { app: 'payments', migrations: [PAYMENTS_MIGRATIONS] });
  return startNestHost({
    name: 'payments',
    infrastructure,
    modules: [PaymentsModule.forRoot(paymentsConfig(host))],
    config: host,
  });
});
