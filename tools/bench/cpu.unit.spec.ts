import { existsSync } from 'node:fs';
import { allInOneGroups, cpuDelta, cpuSnapshot, descendantsOf, describeCpu, distributedGroups, parseMachineStat, parseSchedstat, sumCpu, type CpuSnapshot } from './cpu';

const schedstat = existsSync('/proc/self/schedstat');
if (!schedstat) console.warn('SKIPPED: the snapshot of this machine: its kernel keeps no scheduler statistics (no /proc/self/schedstat)');

describe("the bench's CPU accounting", () => {
  it('reads a thread schedstat: nanoseconds running, nanoseconds waiting for a core', () => {
    expect(parseSchedstat('1503748613 327166392 5120\n')).toEqual({ runNs: 1_503_748_613, waitNs: 327_166_392 });
    expect(parseSchedstat('')).toBeUndefined();
  });

  it("reads /proc/stat's first line: idle is idle + iowait, the total every field up to steal", () => {
    const text = 'cpu  100 5 50 800 40 3 2 0 0 0\ncpu0 50 2 25 400 20 1 1 0 0 0\n';
    expect(parseMachineStat(text)).toEqual({ idleTicks: 840, totalTicks: 1000 });
    expect(parseMachineStat('nonsense')).toEqual({ idleTicks: 0, totalTicks: 0 });
  });

  it('sums each group over its processes; a process started meanwhile counts from its start, one gone is not counted', () => {
    const snapshot = (atMs: number, processes: [number, string, number][], main: [number, number], machine: [number, number]): CpuSnapshot => ({
      available: true,
      atMs,
      processes: new Map(processes.map(([pid, group, runNs]) => [pid, { group, runNs }])),
      mainThread: { runNs: main[0], waitNs: main[1] },
      machine: { idleTicks: machine[0], totalTicks: machine[1] },
    });
    const before = snapshot(0, [[10, 'service', 1e9], [20, 'PostgreSQL', 2e9], [21, 'PostgreSQL', 5e8]], [8e8, 1e8], [100, 200]);
    const after = snapshot(2_000, [[10, 'service', 2.5e9], [20, 'PostgreSQL', 2.6e9], [22, 'PostgreSQL', 1e8]], [1.8e9, 4e8], [250, 600]);
    const delta = cpuDelta(before, after);
    expect(delta.seconds).toBe(2);
    expect(Object.fromEntries(delta.runMs)).toEqual({ service: 1_500, PostgreSQL: 700 });
    expect(delta.mainThread).toEqual({ runMs: 1_000, waitMs: 300 });
    expect(delta.idle).toBeCloseTo(150 / 400);
    const line = describeCpu(delta, 1_000);
    expect(line).toContain('CPU ms per request: service 1.50, PostgreSQL 0.70');
    expect(line).toContain("the service's main thread per request: 1.00 running, 0.30 waiting for a core (50 % and 15 % of the time)");
    expect(line).toContain('Of one core over 2.0 s: service 75 %, PostgreSQL 35 %');
    expect(line).toContain('idle 38 %');
    expect(describeCpu({ ...delta, available: false }, 1_000)).toMatch(/^CPU: not measured/);
  });

  it('takes intervals as one: times by group and seconds added, the idle share weighted by each interval\'s seconds', () => {
    const first = { available: true, seconds: 1, runMs: new Map([['payments', 300], ['Kafka', 100]]), mainThread: undefined, idle: 0.5 };
    const second = { available: true, seconds: 3, runMs: new Map([['payments', 900], ['ledger', 200]]), mainThread: undefined, idle: 0.1 };
    const sum = sumCpu([first, second]);
    expect(sum.seconds).toBe(4);
    expect(Object.fromEntries(sum.runMs)).toEqual({ payments: 1_200, Kafka: 100, ledger: 200 });
    expect(sum.idle).toBeCloseTo((0.5 + 0.3) / 4);
    expect(sum.available).toBe(true);
    expect(sumCpu([first, { ...second, available: false }]).available).toBe(false);
  });

  it('groups the processes of either topology', () => {
    const service = allInOneGroups(4242);
    expect(service({ pid: 4242, command: 'node tools/run.js apps/all-in-one/src/main.ts' })).toBe('service');
    expect(service({ pid: 77, command: 'postgres: postgres bench_service 127.0.0.1(5501) idle' })).toBe('PostgreSQL');
    expect(service({ pid: process.pid, command: 'node tools/run.js tools/bench/bench.ts' })).toBe('bench');
    expect(service({ pid: 78, command: '' })).toBeUndefined();
    expect(service({ pid: 79, command: 'sshd: root' })).toBe('other');
    expect(distributedGroups({ pid: 80, command: 'node tools/run.js apps/supplier-payments/src/main.ts' })).toBe('supplier-payments');
    expect(distributedGroups({ pid: 81, command: '/repo/tools/kafka-mock/kafka-mock 3' })).toBe('Kafka mock');
    expect(distributedGroups({ pid: 82, command: 'java -Xms64m -cp /repo/tools/kafka/.cache/4.1.1/lib/* kafka.Kafka /tmp/pay-kafka-x/node-1/server.properties' })).toBe('Kafka');
  });

  it("counts the bench's own process tree only, not another checkout's processes of the same names", () => {
    const parents = new Map([[10, 1], [11, 10], [12, 11], [13, 1], [14, 13]]);
    expect([...descendantsOf(10, [...parents.keys()], (pid) => parents.get(pid))].sort()).toEqual([10, 11, 12]);
  });

  (schedstat ? it : it.skip)("snapshots this machine: this process is 'bench' and has run", () => {
    const snapshot = cpuSnapshot(allInOneGroups(-1), process.pid);
    expect(snapshot.processes.get(process.pid)?.group).toBe('bench');
    expect(snapshot.processes.get(process.pid)?.runNs).toBeGreaterThan(0);
    expect(snapshot.mainThread?.runNs).toBeGreaterThan(0);
    expect(snapshot.machine.totalTicks).toBeGreaterThan(0);
  });
});
