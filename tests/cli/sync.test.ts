// `cairn sync` as a person runs it, with the built CLI and real git: set up with --remote (a bare
// repository over file://), --status, --off; and Cairn killed (SIGKILL) in the middle of a sync
// loses nothing: the next sync completes and the other machine gets every file. To kill it at a
// known step, git is reached through a stand-in on PATH that runs the real git, except that a
// `push` first says so (a file) and waits to be released; the test kills Cairn while it waits. No
// timing is relied on: the test waits for the file.
import { spawn, execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runCairn } from '../support/cli';
import { CAIRN_BIN, makeSandbox, requireBuiltCli, type Sandbox } from '../support/sandbox';
import { bareRepository } from '../support/sync-machines';

let sb: Sandbox;
let remote: string;
beforeAll(requireBuiltCli);
beforeEach(async () => {
  sb = await makeSandbox();
  remote = `file://${bareRepository(path.join(sb.dir, 'memory.git'))}`;
});
afterEach(async () => {
  await sb.cleanup();
});

const homeOf = (name: string) => path.join(sb.dir, name);
const cairn = (name: string, ...args: string[]) => runCairn([...args, '--home', homeOf(name)]);
const memoryFile = (name: string, rel: string) => path.join(homeOf(name), 'memory', 'global', rel);

async function remember(name: string, rel: string, text: string): Promise<void> {
  const r = await cairn(name, 'tool', JSON.stringify({ command: 'create', path: `/memories/global/${rel}`, file_text: text }));
  expect(r.status, r.stderr).toBe(0);
}

/** Waits for `file` to exist; fails at once if what should make it has stopped. */
async function waitFor(file: string, stopped: () => boolean): Promise<void> {
  while (!fs.existsSync(file)) {
    if (stopped()) throw new Error(`the sync ended before ${path.basename(file)} appeared`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('cairn sync', () => {
  it('is set up with --remote, says where it stands, and stops with --off', async () => {
    await remember('laptop', 'preferences.md', '- Tabs, not spaces.\n');
    const setUp = await cairn('laptop', 'sync', '--remote', remote);
    expect(setUp.stdout).toContain(`The global memory now syncs with ${remote}.`);
    expect(setUp.stdout).toContain('Synced the global memory with');
    expect(setUp.stdout).toContain('1 sent, 0 taken in');
    expect(setUp.status).toBe(0);

    const other = await cairn('desktop', 'sync', '--remote', remote);
    expect(other.stdout).toContain('0 sent, 1 taken in');
    expect(fs.readFileSync(memoryFile('desktop', 'preferences.md'), 'utf8')).toBe('- Tabs, not spaces.\n');

    const status = await cairn('desktop', 'sync', '--status');
    expect(status.stdout).toContain(`The global memory syncs with ${remote}.`);
    expect(status.stdout).toMatch(/Last synced: \d{4}-/);

    const off = await cairn('desktop', 'sync', '--off');
    expect(off.stdout).toContain('no longer syncs');
    const after = await cairn('desktop', 'sync');
    expect(after.status).toBe(1);
    expect(after.stderr).toContain('Sync is not set up. Set it up with: cairn sync --remote URL');
    expect(fs.readFileSync(memoryFile('desktop', 'preferences.md'), 'utf8')).toBe('- Tabs, not spaces.\n');
  });

  it('says it is offline when the remote cannot be reached, and keeps the change for the next sync', async () => {
    await remember('laptop', 'a.md', 'a\n');
    const r = await cairn('laptop', 'sync', '--remote', `file://${path.join(sb.dir, 'gone.git')}`);
    expect(r.status).toBe(1);
    expect(r.stdout).toContain('Could not sync with');
    expect(r.stdout).toContain('Your changes are kept and go out with the next sync.');
  });

  it('loses nothing when killed in the middle of a sync: the next sync completes', async () => {
    await remember('laptop', 'a.md', 'first\n');
    expect((await cairn('laptop', 'sync', '--remote', remote)).status).toBe(0);
    await remember('laptop', 'b.md', 'second\n');

    // git through a stand-in that stops at `push` until released (or killed with Cairn).
    const shim = path.join(sb.dir, 'shim');
    fs.mkdirSync(shim);
    const realGit = execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim();
    const waiting = path.join(sb.dir, 'push-waiting');
    fs.writeFileSync(
      path.join(shim, 'git'),
      `#!/bin/sh\nif [ "$1" = push ]; then : > '${waiting}'; while :; do sleep 1; done; fi\nexec '${realGit}' "$@"\n`,
      { mode: 0o755 },
    );
    const child = spawn(CAIRN_BIN, ['sync', '--home', homeOf('laptop')], { env: { ...process.env, PATH: `${shim}:${process.env.PATH}` }, stdio: 'ignore', detached: true });
    let gone = false;
    const exited = new Promise<void>((resolve) =>
      child.once('exit', () => {
        gone = true;
        resolve();
      }),
    );
    await waitFor(waiting, () => gone);
    process.kill(-child.pid!, 'SIGKILL');
    await exited;
    // The killed process's lease expires when its holder stops refreshing it (a minute); rather
    // than wait, the test ages it, as that minute would.
    const lock = path.join(homeOf('laptop'), 'sync', 'sync.lock');
    if (fs.existsSync(lock)) fs.utimesSync(lock, new Date(0), new Date(0));

    const next = await cairn('laptop', 'sync');
    expect(next.stdout, next.stderr).toContain('Synced the global memory with');
    expect(next.status).toBe(0);
    const desk = await cairn('desktop', 'sync', '--remote', remote);
    expect(desk.stdout).toContain('0 sent, 2 taken in');
    expect(fs.readFileSync(memoryFile('desktop', 'b.md'), 'utf8')).toBe('second\n');
  });
});
