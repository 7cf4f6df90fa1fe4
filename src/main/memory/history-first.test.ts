// A change is recorded in the version history before it is made (change-outbox.ts ChangeRecord):
// a change the history cannot take is refused, with memory as it was, for an agent's command, a
// person's save, an undo and a person's batch alike; a change recorded and then not made is taken
// back, on a full disk too (the history's reserve). Real HistoryStore, real disk; the full disk is
// a real tmpfs (needs root with mount rights, as in CI; elsewhere that case is skipped).
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MemoryToolError } from '../../common/memory/errors';
import { makeSandbox, type Sandbox } from '../../../tests/support/sandbox';
import { RUNTIME_KINDS, suiteRuntime } from '../../../tests/support/ssh';
import { HistoryStore, RESERVE_FILE, type HistoryChange } from '../history/history-store';
import { MemoryService } from './memory-service';
import { canMount } from '../../../tests/support/small-disk';

const sha = (s: string) => createHash('sha256').update(s).digest('hex');
const refusal = /the version history could not record the change \(a file or folder is in the way of its files\), so nothing was changed/;

let sb: Sandbox;
let history: HistoryStore;
let service: MemoryService;
const file = (name: string) => path.join(sb.roots.global, name);
const blockLog = () => {
  fs.rmSync(history.logFile, { force: true });
  fs.mkdirSync(history.logFile, { recursive: true });
};

describe('recorded before made', () => {
  beforeEach(async () => {
    sb = await makeSandbox();
    history = new HistoryStore(sb.home);
    service = new MemoryService({ history });
    fs.mkdirSync(sb.roots.global, { recursive: true });
    fs.writeFileSync(file('a.md'), 'alpha\n');
  });
  afterEach(async () => {
    await sb.cleanup();
  });

  it("a person's save, an undo and a batch are refused whole when the history cannot take them", async () => {
    const saved = await service.save('/memories/global/a.md', 'alpha two\n', sha('alpha\n'), sb.session);
    expect(saved.status).toBe('ok');
    const [version] = history.list();
    blockLog();
    // The save (the UI's and the API's): the message the API passes on, no host path in it.
    const save = service.save('/memories/global/a.md', 'alpha three\n', sha('alpha two\n'), sb.session);
    await expect(save).rejects.toThrow(MemoryToolError);
    await expect(save).rejects.toThrow(/^Could not save \/memories\/global\/a\.md: the version history could not record the change \(a file or folder is in the way of its files\)/);
    await expect(save).rejects.not.toThrow(sb.home);
    expect(fs.readFileSync(file('a.md'), 'utf8')).toBe('alpha two\n');
    // An undo of the save.
    await expect(service.undo([{ path: version!.path, op: 'update', before: Buffer.from('alpha\n'), after: Buffer.from('alpha two\n') }], `undo:${version!.id}`, sb.session)).rejects.toThrow(refusal);
    expect(fs.readFileSync(file('a.md'), 'utf8')).toBe('alpha two\n');
    // A consolidation's batch: nothing of it is written.
    await expect(
      service.writeBatch(
        [{ key: 'merge', files: [{ path: '/memories/global/a.md', expectedSha256: sha('alpha two\n'), content: 'merged\n' }, { path: '/memories/global/b.md', expectedSha256: null, content: 'new\n' }] }],
        'sweep:x',
        sb.session,
      ),
    ).rejects.toThrow(refusal);
    expect(fs.readdirSync(sb.roots.global)).toEqual(['a.md']);
    expect(fs.readFileSync(file('a.md'), 'utf8')).toBe('alpha two\n');
  });

  it('a change recorded and then not made is taken back: the history lists only what the disk saw', async () => {
    // The second file's write fails after the whole batch was recorded (its parent is a file).
    fs.writeFileSync(file('x'), 'a file where a folder would be\n');
    await expect(
      service.writeBatch(
        [
          { key: 'one', files: [{ path: '/memories/global/a.md', expectedSha256: sha('alpha\n'), content: 'changed\n' }] },
          { key: 'two', files: [{ path: '/memories/global/x/b.md', expectedSha256: null, content: 'b\n' }] },
        ],
        'sweep:y',
        sb.session,
      ),
    ).rejects.toThrow();
    expect(fs.readFileSync(file('a.md'), 'utf8')).toBe('alpha\n');
    expect(history.list()).toEqual([]);
    expect(new HistoryStore(sb.home).list()).toEqual([]); // another process's reader too
    // The log holds the batch and its void line; gc drops both.
    expect(fs.readFileSync(history.logFile, 'utf8')).toMatch(/\{"v":2,"void":"[0-9a-z-]+"\}\n$/);
    history.gc();
    expect(fs.readFileSync(history.logFile, 'utf8')).toBe('');
  });
});

// The same for an agent's commands in a project scope, on this disk and on an SSH host (where the
// record is made before the request that changes the file; the history is this machine's).
describe.each(RUNTIME_KINDS)("an agent's commands the history cannot take, over the %s runtime", (kind) => {
  const runtime = suiteRuntime(kind);
  beforeEach(async () => {
    sb = await makeSandbox({ runtime: runtime() });
    history = new HistoryStore(sb.home);
    service = new MemoryService({ history });
  });
  afterEach(async () => {
    await sb.cleanup();
  });

  it('refuses each write, names the reason, and leaves the scope as it was', async () => {
    const run = (input: Record<string, unknown>) => service.execute(input, sb.session, { mode: 'exec', actor: 'agent' });
    expect((await run({ command: 'create', path: '/memories/project/a.md', file_text: 'alpha\n' })).ok).toBe(true);
    blockLog();
    for (const input of [
      { command: 'str_replace', path: '/memories/project/a.md', old_str: 'alpha', new_str: 'beta' },
      { command: 'insert', path: '/memories/project/a.md', insert_line: 0, insert_text: 'top' },
      { command: 'create', path: '/memories/project/b.md', file_text: 'b\n' },
      { command: 'delete', path: '/memories/project/a.md' },
      { command: 'rename', old_path: '/memories/project/a.md', new_path: '/memories/project/c.md' },
    ]) {
      const r = await run(input);
      expect(r).toMatchObject({ ok: false, output: expect.stringMatching(refusal) });
      expect(r.output).not.toContain(sb.home);
    }
    expect(fs.readdirSync(sb.roots.project)).toEqual(['a.md']);
    expect(fs.readFileSync(path.join(sb.roots.project, 'a.md'), 'utf8')).toBe('alpha\n');
  });
});

function canChattr(): boolean {
  if (process.getuid?.() !== 0) return false;
  const dir = fs.mkdtempSync('/tmp/cairn-chattr-probe-');
  try {
    fs.writeFileSync(path.join(dir, 'f'), '');
    execFileSync('chattr', ['+i', path.join(dir, 'f')], { stdio: 'ignore' });
    execFileSync('chattr', ['-i', path.join(dir, 'f')], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

// A directory's delete that stops midway (a file inside cannot be removed: made immutable, which
// needs root and a filesystem with attributes; elsewhere skipped) keeps exactly what it took away.
describe.each(RUNTIME_KINDS)('a delete of a directory that stops midway, over the %s runtime', (kind) => {
  const runtime = suiteRuntime(kind);
  let stuck: string | null = null;
  beforeEach(async () => {
    sb = await makeSandbox({ runtime: runtime() });
    history = new HistoryStore(sb.home);
    service = new MemoryService({ history });
  });
  afterEach(async () => {
    if (stuck) execFileSync('chattr', ['-i', stuck]);
    stuck = null;
    await sb.cleanup();
  });

  it.runIf(canChattr())('records the delete of the files that are gone, and only those', async () => {
    const run = (input: Record<string, unknown>) => service.execute(input, sb.session, { mode: 'exec', actor: 'agent' });
    for (const name of ['a.md', 'b.md', 'sub/c.md']) expect((await run({ command: 'create', path: `/memories/project/d/${name}`, file_text: `${name}\n` })).ok).toBe(true);
    stuck = path.join(sb.roots.project, 'd', 'sub', 'c.md');
    execFileSync('chattr', ['+i', stuck]);
    const r = await run({ command: 'delete', path: '/memories/project/d' });
    expect(r.ok).toBe(false);
    const gone = ['a.md', 'b.md', 'sub/c.md'].filter((n) => !fs.existsSync(path.join(sb.roots.project, 'd', n)));
    expect(gone.length).toBeGreaterThan(0);
    expect(gone).not.toContain('sub/c.md');
    const deletes = history.list({ op: 'delete' }).map((v) => v.path.replace('/memories/project/d/', ''));
    expect(deletes.sort()).toEqual(gone.sort());
    // Each can be brought back from its version.
    for (const v of history.list({ op: 'delete' })) expect(Buffer.from(history.readBlob(v.before!)!).toString()).toBe(`${v.path.replace('/memories/project/d/', '')}\n`);
  });
});

describe.runIf(canMount())('the reserve, on a full disk', () => {
  let home: string;
  beforeEach(() => {
    home = fs.mkdtempSync('/tmp/cairn-history-reserve-');
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=256k,mode=0700', 'tmpfs', home]);
  });
  afterEach(() => {
    execFileSync('umount', [home]);
    fs.rmdirSync(home);
  });

  it('lets a batch recorded before a change that then failed be taken back, and is made again once there is room', () => {
    const store = new HistoryStore(home);
    const change: HistoryChange = {
      owner: 'global',
      scope: 'global',
      path: '/memories/global/a.md',
      op: 'update',
      before: Buffer.from('a'.repeat(2000)),
      after: Buffer.from('b'.repeat(2000)),
      actor: 'agent',
      cause: 'tool',
      workspaceId: null,
      projectId: null,
    };
    const kept = store.prepare([change]);
    const [batch] = store.prepare([change]);
    expect(fs.statSync(path.join(home, 'history', RESERVE_FILE)).size).toBe(64 * 1024);
    // The disk fills up (the change's own write failed for that): not a byte left.
    const fillers: string[] = [];
    for (let k = 0; ; k++) {
      const p = path.join(home, `filler-${k}`);
      try {
        fs.writeFileSync(p, Buffer.alloc(4096, 0x61));
        fillers.push(p);
      } catch {
        fs.rmSync(p, { force: true });
        break;
      }
    }
    expect(() => fs.appendFileSync(store.logFile, 'x'.repeat(8192))).toThrow(/ENOSPC/);
    expect(store.abandon(batch!)).toBe(true);
    expect(store.list().map((v) => v.id)).toEqual(kept);
    expect(fs.existsSync(path.join(home, 'history', RESERVE_FILE))).toBe(false);
    // No reserve and no room for one: the next change is refused, not recorded without it.
    expect(() => store.prepare([change])).toThrow(expect.objectContaining({ code: 'ENOSPC' }));
    expect(store.list().map((v) => v.id)).toEqual(kept);
    for (const p of fillers) fs.rmSync(p);
    expect(store.prepare([change])).toHaveLength(1);
    expect(fs.statSync(path.join(home, 'history', RESERVE_FILE)).size).toBe(64 * 1024);
  });
});
