import { parseArgs } from 'node:util';
import { client, type Call } from './http';
import { checkEvents, checkRound, type Check } from './invariants';
import { ChaosReceiver } from './receiver';
import { allInOne, distributed, type Target } from './targets';
import { runOperation, type Operation, type OperationKind } from './workload';
import { createCashPoint, createRoundWorld, type RoundWorld } from './world';

/**
 * `npm run chaos`: rounds of mixed traffic (payments with refunds, cash payments, supplier payments,
 * collections, webhooks to a local receiver) while a random process is killed with SIGKILL and started
 * again, and, in the distributed topology, a Kafka broker goes down and comes back. After each round the
 * invariants are checked (invariants.ts). Prints every round, then rounds run, faults injected and
 * invariants held; exits 1 on any violation. A seed replays a run's choices: --seed N.
 */

const USAGE = 'npm run chaos -- [--topology all-in-one|distributed|both] [--rounds N] [--seed N]';
const OPERATIONS_PER_ROUND = 14;
/** Operations start within this window; the fault falls inside it. */
const START_WINDOW_MS = 1_500;
const CUSTOMER_FUNDS = 100_000_000;
const BUSINESS_FUNDS = 100_000_000;
const KINDS: OperationKind[] = ['payment', 'payment', 'cash_payment', 'supplier_payment', 'collection'];
/** Share of payments that are then partly refunded (in the same window, so refunds meet the fault too). */
const REFUNDED_SHARE = 0.5;
/** Share of distributed rounds whose fault is a broker outage rather than a killed app. */
const BROKER_OUTAGE_SHARE = 0.3;
/** Of each process's output, the warning and error lines shown after a violated round. */
const TROUBLE_LINES_SHOWN = 15;

/** A small seeded generator (mulberry32): the same seed makes the same choices. */
const seededRandom = (seed: number) => () => {
  seed = (seed + 0x6d2b79f5) | 0;
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
};

interface Totals {
  rounds: number;
  kills: number;
  brokerOutages: number;
  operations: number;
  disturbed: number;
  violations: number;
  checks: Map<string, { held: number; broken: number }>;
}

async function runTopology(target: Target, rounds: number, random: () => number, receiver: ChaosReceiver): Promise<Totals> {
  const totals: Totals = { rounds: 0, kills: 0, brokerOutages: 0, operations: 0, disturbed: 0, violations: 0, checks: new Map() };
  const http: Call = client(target.url);
  const admin: Call = (method, path, options = {}) => http(method, path, { key: target.adminKey, ...options });
  const cashPoint = await createCashPoint(admin);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  const between = (low: number, high: number) => Math.floor(low + random() * (high - low));

  let previous: { round: number; world: RoundWorld } | undefined;
  for (let round = 1; round <= rounds; round++) {
    const startedAt = Date.now();
    const world = await createRoundWorld(admin, http, round, receiver.urlFor(round), { customer: CUSTOMER_FUNDS, business: BUSINESS_FUNDS });
    receiver.trust(round, world.webhookSecret);

    const operations: Operation[] = [];
    const flows = Array.from({ length: OPERATIONS_PER_ROUND }, async () => {
      const operation: Operation = { kind: pick(KINDS), amount: between(10_000, 1_000_000), disturbed: false };
      const refunded = operation.kind === 'payment' && random() < REFUNDED_SHARE;
      operations.push(operation);
      await new Promise((r) => setTimeout(r, between(0, START_WINDOW_MS)));
      await runOperation(http, world, operation, cashPoint);
      if (refunded && operation.acknowledged === 'succeeded') {
        const refund: Operation = { kind: 'refund', amount: Math.max(1, Math.floor(operation.amount / 2)), payment: operation.id!, disturbed: false };
        operations.push(refund);
        await runOperation(http, world, refund, cashPoint);
      }
    });

    const faultAt = between(200, START_WINDOW_MS);
    let fault: string;
    await new Promise((r) => setTimeout(r, faultAt));
    if (target.brokers > 0 && random() < BROKER_OUTAGE_SHARE) {
      const broker = between(1, target.brokers + 1);
      const outageMs = between(1_000, 3_000);
      await target.brokerOutage(broker, outageMs);
      totals.brokerOutages += 1;
      fault = `broker ${broker} down for ${outageMs} ms at ${faultAt} ms`;
    } else {
      const victim = pick(target.processes);
      await victim.kill('SIGKILL');
      const down = Date.now();
      await victim.start();
      totals.kills += 1;
      fault = `${victim.name} killed at ${faultAt} ms, serving again after ${((Date.now() - down) / 1_000).toFixed(1)} s`;
    }
    await Promise.all(flows);

    const checks: Check[] = await checkRound(admin, http, world, operations);
    // The previous round's events: their deliveries have had this round's time to be claimed again.
    if (previous) checks.push(await checkEvents(http, receiver, previous.round, previous.world, false));
    if (round === rounds) checks.push(await checkEvents(http, receiver, round, world, true));
    previous = { round, world };
    tally(totals, checks);
    totals.operations += operations.length;
    totals.disturbed += operations.filter((o) => o.disturbed).length;
    const broken = checks.filter((check) => check.violations.length > 0);
    const seconds = ((Date.now() - startedAt) / 1_000).toFixed(1);
    print(
      `${target.name} round ${round}/${rounds} (${seconds} s): ${fault}; ${operations.length} operations, ${operations.filter((o) => o.disturbed).length} disturbed; ` +
        (broken.length === 0 ? 'every invariant held' : `VIOLATED:\n${broken.map((c) => `  ${c.name}:\n    ${c.violations.join('\n    ')}`).join('\n')}`),
    );
    if (broken.length > 0) print(troubleLines(target));
  }
  return totals;
}

/** What each process logged at warn or error level lately: a violation's first clue (the processes' output is not echoed). */
function troubleLines(target: Target): string {
  return target.processes
    .map((app) => {
      const lines = app
        .output()
        .split('\n')
        .filter((line) => /\b(WARN|ERROR|warn|error)\b/.test(line))
        .slice(-TROUBLE_LINES_SHOWN);
      return lines.length === 0 ? '' : `  ${app.name}, its last warnings and errors:\n    ${lines.map((line) => line.slice(0, 400)).join('\n    ')}`;
    })
    .filter(Boolean)
    .join('\n');
}

function tally(totals: Totals, checks: Check[]): void {
  totals.rounds += 1;
  for (const check of checks) {
    const count = totals.checks.get(check.name) ?? { held: 0, broken: 0 };
    if (check.violations.length > 0) {
      count.broken += 1;
      totals.violations += 1;
    } else count.held += 1;
    totals.checks.set(check.name, count);
  }
}

function summary(name: string, totals: Totals): string {
  const lines = [
    `${name}: ${totals.rounds} rounds, ${totals.kills} processes killed (SIGKILL) and restarted, ${totals.brokerOutages} broker outages, ${totals.operations} operations (${totals.disturbed} disturbed by a fault)`,
    ...[...totals.checks].map(([check, tally]) => `  ${tally.broken === 0 ? 'held' : 'BROKEN'}  ${check}: held in ${tally.held} of ${tally.held + tally.broken} rounds`),
  ];
  return lines.join('\n');
}

const print = (line: string) => process.stdout.write(`${line}\n`);

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { topology: { type: 'string', default: 'both' }, rounds: { type: 'string', default: '10' }, seed: { type: 'string' } } });
  const rounds = Number(values.rounds);
  const topologies = values.topology === 'both' ? ['all-in-one', 'distributed'] : [values.topology];
  if (!Number.isInteger(rounds) || rounds < 1 || topologies.some((t) => t !== 'all-in-one' && t !== 'distributed')) throw new Error(`usage: ${USAGE}`);
  const seed = values.seed === undefined ? Math.floor(Math.random() * 2 ** 31) : Number(values.seed);
  print(`chaos: seed ${seed} (replay with --seed ${seed}), ${rounds} rounds in ${topologies.join(' and ')}`);
  const random = seededRandom(seed);
  const results: [string, Totals][] = [];
  for (const name of topologies) {
    const receiver = await new ChaosReceiver().start();
    print(`${name}: starting`);
    const target = name === 'all-in-one' ? await allInOne() : await distributed();
    try {
      results.push([name, await runTopology(target, rounds, random, receiver)]);
    } finally {
      await target.stop();
      await receiver.stop();
    }
  }
  print(`\nchaos summary (seed ${seed})`);
  for (const [name, totals] of results) print(summary(name, totals));
  const failed = results.some(([, totals]) => totals.violations > 0);
  print(failed ? 'SOME INVARIANT WAS BROKEN' : 'every invariant held in every round');
  process.exit(failed ? 1 : 0);
}

main().catch((error: unknown) => {
  process.stderr.write(`chaos: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(2);
});
