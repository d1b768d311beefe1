import { SUPPLIER_PAYMENTS_MIGRATIONS, SupplierPaymentsModule } from '@pay/supplier-payments-feature';
import { EnvReader } from '@pay/kernel';
import { readHostConfig, runMain, startInfrastructure, startNestHost } from '@pay/runtime';

/** The supplier-payments app alone: beneficiaries and supplier payments; /health, /ready and /metrics on PORT. */
runMain(async () => {
  const read = new EnvReader(process.env);
  const host = readHostConfig(read);
  read.done();
  const infrastructure = await startInfrastructure(host, { app: 'supplier-payments', migrations: [SUPPLIER_PAYMENTS_MIGRATIONS] });
  return startNestHost({
    name: 'supplier-payments',
    infrastructure,
    modules: [SupplierPaymentsModule.forRoot({ publicBaseUrl: host.publicBaseUrl })],
    config: host,
  });
});
