import { EnvReader } from '@pay/kernel';
import { LEDGER_MIGRATIONS, LedgerModule, readFeeSchedule, readLedgerSigningKey } from '@pay/ledger-feature';
import { readHostConfig, runMain, startInfrastructure, startNestHost } from '@pay/runtime';

/** The ledger app alone: accounts, transfers and the journal; /health, /ready and /metrics on PORT. */
runMain(async () => {
  const read = new EnvReader(process.env);
  const host = readHostConfig(read);
  const feeSchedule = readFeeSchedule(read);
  const signingKey = readLedgerSigningKey(read, host.dataDir);
  read.done();
  const infrastructure = await startInfrastructure(host, { app: 'ledger', migrations: [LEDGER_MIGRATIONS] });
  return startNestHost({
    name: 'ledger',
    infrastructure,
    modules: [LedgerModule.forRoot({ feeSchedule, signingKey })],
    config: host,
  });
});
