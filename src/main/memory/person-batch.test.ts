// A person's multi-file change as one history batch, on the real disk and over the real
// sshd: groups whose files moved on are skipped and reported, the rest land, one batch is recorded,
// and undoing that batch gives back every file at once.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeSandbox, type Sandbox } from '../../../tests/support/sandbox';
import { RUNTIME_KINDS, suiteRuntime } from '../../../tests/support/ssh';
import { HistoryStore } from '../history/history-store';
import { LocalRuntime } from '../runtime/local/local-runtime';
import { RuntimeError, type Runtime } from '../runtime/runtime';
import { sha256 } from './change-outbox';
import { MemoryService } from './memory-service';
import { VersionHistory } from './version-history';

let sb: Sandbox;
let history: HistoryStore;
let service: MemoryService;
const sha = (text: string) => sha256(new TextEncoder().encode(text));
const file = (name: string) => path.join(sb.roots.global, name);
const tree = () => Object.fromEntries(fs.readdirSync(sb.roots.global).sort().map((n) => [n, fs.readFileSync(file(n), 'utf8')]));

describe.each(RUNTIME_KINDS)('writeBatch over the %s runtime', (kind) => {
  const runtime = suiteRuntime(kind);
  beforeEach(async () => {
    sb = await makeSandbox({ runtime: runtime() });
    history = new HistoryStore(sb.home);
    service = new MemoryService({ history });
    fs.mkdirSync(sb.roots.global, { recursive: true });
    for (const [n, t] of Object.entries({ 'a.md': 'alpha\n', 'b.md': 'beta\n', 'c.md': 'gamma\n', 'd.md': 'delta\n' })) fs.writeFileSync(file(n), t);
  });
  afterEach(async () => {
    await sb.cleanup();
  });

  it('skips exactly the group whose file moved on, records the rest as one batch, and undo takes it all back', async () => {
    const start = tree();
    fs.writeFileSync(file('c.md'), 'gamma, edited by an agent\n');
    const edited = tree();
    const outcome = await service.writeBatch(
      [
        { key: 'merge', files: [{ path: '/memories/global/a.md', expectedSha256: sha('alpha\n'), content: 'alpha\nbeta\n' }, { path: '/memories/global/b.md', expectedSha256: sha('beta\n'), content: null }] },
        { key: 'stale', files: [{ path: '/memories/global/c.md', expectedSha256: sha('gamma\n'), content: null }] },
        { key: 'keep-check', files: [{ path: '/memories/global/d.md', expectedSha256: sha('delta\n') }] },
      ],
      'sweep:test-1',
      sb.session,
    );
    expect(outcome.applied).toEqual(['merge', 'keep-check']);
    expect(outcome.conflicts).toEqual([{ key: 'stale', path: '/memories/global/c.md', kind: 'changed', message: '/memories/global/c.md was changed since the proposal; this change was skipped.' }]);
    expect(tree()).toEqual({ 'a.md': 'alpha\nbeta\n', 'c.md': 'gamma, edited by an agent\n', 'd.md': 'delta\n' });

    const versions = history.list({});
    expect(new Set(versions.map((v) => v.batch)).size).toBe(1);
    expect(versions.map((v) => [v.op, v.path, v.cause, v.actor]).sort()).toEqual([
      ['delete', '/memories/global/b.md', 'sweep:test-1', 'person'],
      ['update', '/memories/global/a.md', 'sweep:test-1', 'person'],
    ]);
    const undone = await new VersionHistory(history, service).undo(versions[0]!.id, sb.session);
    expect(undone).toMatchObject({ status: 'ok', files: 2 });
    expect(tree()).toEqual(edited);
    expect(start['c.md']).toBe('gamma\n');
  });

  it('a group whose file is gone is skipped whole: its other files stay as they are', async () => {
    fs.rmSync(file('b.md'));
    const outcome = await service.writeBatch(
      [{ key: 'merge', files: [{ path: '/memories/global/a.md', expectedSha256: sha('alpha\n'), content: 'alpha\nbeta\n' }, { path: '/memories/global/b.md', expectedSha256: sha('beta\n'), content: null }] }],
      'sweep:test-2',
      sb.session,
    );
    expect(outcome).toEqual({ applied: [], conflicts: [expect.objectContaining({ key: 'merge', path: '/memories/global/b.md', kind: 'deleted' })] });
    expect(fs.readFileSync(file('a.md'), 'utf8')).toBe('alpha\n');
    expect(history.list({})).toEqual([]);
  });

  it('refuses files of two scopes and content that is not text, before touching anything', async () => {
    await expect(
      service.writeBatch([{ key: 'x', files: [{ path: '/memories/global/a.md', expectedSha256: sha('alpha\n'), content: null }, { path: '/memories/workspace/a.md', expectedSha256: null, content: 'x' }] }], 'sweep:x', sb.session),
    ).rejects.toThrow('one scope');
    await expect(service.writeBatch([{ key: 'x', files: [{ path: '/memories/global/a.md', expectedSha256: sha('alpha\n'), content: 'bad\0' }] }], 'sweep:x', sb.session)).rejects.toThrow(/text/);
    await expect(
      service.writeBatch([{ key: 'x', files: [{ path: '/memories/global/a.md', expectedSha256: sha('alpha\n'), content: null }] }, { key: 'y', files: [{ path: '/memories/global/a.md', expectedSha256: sha('alpha\n'), content: 'x' }] }], 'sweep:x', sb.session),
    ).rejects.toThrow('/memories/global/a.md appears twice in one batch');
    expect(fs.readFileSync(file('a.md'), 'utf8')).toBe('alpha\n');
  });
});

describe('writeBatch when a write fails midway', () => {
  afterEach(async () => {
    await sb.cleanup();
  });

  it('takes back what it had written: the tree and the history are as before', async () => {
    // A fault no real disk gives on demand: the runtime's second remove fails (a mock, for that alone).
    const local = new LocalRuntime();
    let removes = 0;
    const faulty: Runtime = Object.assign(Object.create(local) as Runtime, {
      remove: async (...args: Parameters<Runtime['remove']>) => {
        if (++removes === 2) throw new RuntimeError('IO');
        return local.remove(...args);
      },
    });
    sb = await makeSandbox({ runtime: faulty });
    history = new HistoryStore(sb.home);
    service = new MemoryService({ history });
    fs.mkdirSync(sb.roots.global, { recursive: true });
    for (const [n, t] of Object.entries({ 'a.md': 'alpha\n', 'b.md': 'beta\n', 'c.md': 'gamma\n' })) fs.writeFileSync(file(n), t);
    const start = tree();
    await expect(
      service.writeBatch(
        [
          { key: 'merge', files: [{ path: '/memories/global/a.md', expectedSha256: sha('alpha\n'), content: 'alpha\nbeta\n' }, { path: '/memories/global/b.md', expectedSha256: sha('beta\n'), content: null }] },
          { key: 'stale', files: [{ path: '/memories/global/c.md', expectedSha256: sha('gamma\n'), content: null }] },
        ],
        'sweep:fault',
        sb.session,
      ),
    ).rejects.toThrow();
    expect(removes).toBe(2);
    expect(tree()).toEqual(start);
    expect(history.list({})).toEqual([]);
  });
});
