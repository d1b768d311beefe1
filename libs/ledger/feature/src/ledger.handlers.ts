import { type MessageBus } from '@pay/bus';
import { LEDGER_CHAIN_PAGE_MAX } from '@pay/kernel';
import { type LedgerChain } from './chain.service';
import { type LedgerService } from './ledger.service';

/** Answers every `ledger.*` topic of the contracts with the service. */
export function registerLedgerHandlers(bus: MessageBus, service: LedgerService, chain: LedgerChain): void {
  bus.handle('ledger.open-account', (request) => service.openAccount(request));
  bus.handle('ledger.get-balance', (request) => service.getBalance(request));
  bus.handle('ledger.topup', (request) => service.topup(request));
  bus.handle('ledger.transfer', (request) => service.transfer(request));
  bus.handle('ledger.transfer-batch', async (request) => ({ outcomes: await service.transferBatch(request) }));
  bus.handle('ledger.entries', (request) => service.entries(request));
  bus.handle('ledger.trial-balance', (request) => service.trialBalance(request));
  bus.handle('ledger.accounts.list', (request) => service.finance.accounts(request));
  bus.handle('ledger.statement', (request) => service.finance.statement(request));
  bus.handle('ledger.balance-series', (request) => service.finance.balanceSeries(request));
  bus.handle('ledger.fee-revenue', (request) => service.finance.feeRevenue(request));
  bus.handle('ledger.cash-custody', () => service.finance.cashCustody());
  bus.handle('ledger.movements', ({ afterReference, limit }) => service.movements(afterReference, limit));
  bus.handle('ledger.fee-quote', async (request) => service.feeQuote(request));
  bus.handle('ledger.balance-transactions.list', (request) => service.balanceTransactions.list(request));
  bus.handle('ledger.balance-transactions.retrieve', ({ id }) => service.balanceTransactions.retrieve(id));
  bus.handle('ledger.chain.list', ({ fromSequence, limit }) => chain.list({ fromSequence: Math.max(1, fromSequence), limit: Math.min(Math.max(1, limit), LEDGER_CHAIN_PAGE_MAX) }));
  bus.handle('ledger.chain.head', (request) => chain.head(request));
  bus.handle('ledger.signing-keys', () => chain.signingKeys());
  bus.handle('ledger.chain.verify', () => chain.verify());
}
