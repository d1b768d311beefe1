import { COLLECTIONS_MIGRATIONS, CollectionsModule } from '@pay/collections-feature';
import { EnvReader } from '@pay/kernel';
import { readHostConfig, runMain, startInfrastructure, startNestHost } from '@pay/runtime';

/** The collections app alone: marketplace cash reconciliation; /health, /ready and /metrics on PORT. */
runMain(async () => {
  const read = new EnvReader(process.env);
  const host = readHostConfig(read);
  read.done();
  const infrastructure = await startInfrastructure(host, { app: 'collections', migrations: COLLECTIONS_MIGRATIONS });
  return startNestHost({
    name: 'collections',
    infrastructure,
    modules: [CollectionsModule.forRoot({ publicBaseUrl: host.publicBaseUrl })],
    config: host,
  });
});
