/**
 * Real Unix users for the ownership tests: made with useradd (each with its own private group,
 * as Debian's useradd gives), and commands run as them through setpriv with their own uid, gid and
 * groups, nothing of root's kept. Needs root (CI runs as root); elsewhere the suites that need them
 * are skipped, saying why, and under CI their absence fails.
 *
 * The built CLI lives in the checkout: a folder on its way that another user cannot enter (a
 * clone under /root) gets o+x, search only, for the suite, and is put back after.
 */
import { execFileSync, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { giveInput } from './cli';
import { BUILT_CLI, REPO_ROOT } from './sandbox';

export interface UnixUser {
  readonly name: string;
  readonly uid: number;
  readonly gid: number;
}

const SETPRIV = ['/usr/bin/setpriv', '/bin/setpriv'].find((p) => fs.existsSync(p)) ?? null;

/** Whether real users can be made here: root, with useradd and setpriv. */
export function unixUsersAvailable(): boolean {
  if (process.getuid?.() === 0 && SETPRIV && fs.existsSync('/usr/sbin/useradd')) return true;
  if (process.env.CI === 'true' || process.env.CI === '1') {
    throw new Error('the ownership suites need root, useradd and setpriv (CI runs as root)');
  }
  process.stderr.write('Ownership suites skipped: they make real Unix users, which needs root.\n');
  return false;
}

function idsOf(name: string): UnixUser | null {
  try {
    const id = (flag: string) => Number(execFileSync('id', [flag, name], { stdio: 'pipe' }).toString().trim());
    return { name, uid: id('-u'), gid: id('-g') };
  } catch {
    return null;
  }
}

/**
 * The user `name`, made if missing (no home directory, no login shell needed: commands run
 * through setpriv). Users are kept between runs; a second suite finds them made.
 */
export function unixUser(name: string): UnixUser {
  const found = idsOf(name);
  if (found) return found;
  try {
    // Password '*': no password logs in, yet the account is not locked ('!'), which sshd without
    // PAM refuses even for key logins (the SSH suite logs in as such a user).
    execFileSync('/usr/sbin/useradd', ['--no-create-home', '--user-group', '--shell', '/bin/sh', '--password', '*', name], { stdio: 'pipe' });
  } catch (err) {
    // Another suite may have made it meanwhile.
    if (!idsOf(name)) throw err;
  }
  return idsOf(name)!;
}

export interface RunResult {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `command` as `user` (setpriv: their uid, gid and groups only), with `env` as given. */
export function runAs(user: UnixUser, command: string, args: readonly string[], options: { cwd?: string; env?: NodeJS.ProcessEnv; input?: string; timeoutMs?: number } = {}): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(SETPRIV!, [`--reuid=${user.uid}`, `--regid=${user.gid}`, '--init-groups', '--', command, ...args], {
      cwd: options.cwd ?? '/',
      env: { PATH: process.env.PATH, LANG: 'C.UTF-8', ...options.env },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 30_000);
    child.on('error', reject);
    child.on('close', (status) => {
      clearTimeout(timer);
      resolve({ status, stdout, stderr });
    });
    giveInput(child, options.input);
  });
}

/** Runs the built `cairn` CLI as `user`, with HOME set to `home` (the user's own, for os.homedir). */
export function cairnAs(user: UnixUser, args: readonly string[], options: { cwd?: string; home: string; input?: string }): Promise<RunResult> {
  return runAs(user, process.execPath, [BUILT_CLI, ...args], { cwd: options.cwd ?? '/', env: { HOME: options.home }, ...(options.input !== undefined ? { input: options.input } : {}) });
}

/** Runs a shell script as `user` (to make files as they would), failing on any error. */
export async function shellAs(user: UnixUser, script: string, cwd = '/'): Promise<void> {
  const result = await runAs(user, '/bin/sh', ['-ec', script], { cwd });
  if (result.status !== 0) throw new Error(`as ${user.name}: ${script}\n${result.stderr}`);
}

/**
 * Lets other users reach the checkout's built CLI, its node_modules and node itself: each folder on
 * the way that others cannot search gets o+x for as long as the returned function has not run.
 */
export function letOthersReachCli(): () => void {
  const changed: Array<[string, number]> = [];
  for (const target of [REPO_ROOT, path.dirname(process.execPath)]) {
    let dir = target;
    for (;;) {
      const mode = fs.statSync(dir).mode & 0o7777;
      if ((mode & 0o001) === 0) {
        fs.chmodSync(dir, mode | 0o001);
        changed.push([dir, mode]);
      }
      const parent = path.dirname(dir);
      if (parent === dir) break;
      dir = parent;
    }
  }
  return () => {
    for (const [dir, mode] of changed.reverse()) fs.chmodSync(dir, mode);
  };
}
