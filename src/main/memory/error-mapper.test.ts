// The error mapper names the path a failure is about. A rename has two paths, and the runtime's
// ESCAPE does not say which one leads out of the scope: the error must name that one (a
// rename whose destination escapes used to name its source). On the real filesystem, locally and
// over SSH (a real sshd on loopback), with directory symlinks leading out of the scope root.
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MemoryToolError } from '../../common/memory/errors';
import { makeSandbox, type Sandbox } from '../../../tests/support/sandbox';
import { RUNTIME_KINDS, suiteRuntime } from '../../../tests/support/ssh';
import { mapRenameErrors } from './error-mapper';
import type { AvailableScope } from './session';


describe.each(RUNTIME_KINDS)('a rename that fails, over the %s runtime', (kind) => {
  let sb: Sandbox;
  const runtime = suiteRuntime(kind);
  let outside: string;
  beforeEach(async () => {
    sb = await makeSandbox({ runtime: runtime() });
    outside = path.join(sb.dir, 'outside');
    await fs.mkdir(outside);
    await fs.writeFile(path.join(outside, 'secret.txt'), 'TOP SECRET\n');
    expect((await sb.run({ command: 'create', path: '/memories/global/keep.md', file_text: 'keep\n' })).ok).toBe(true);
    expect((await sb.run({ command: 'create', path: '/memories/global/notes/a.md', file_text: 'a\n' })).ok).toBe(true);
    // `out` and `notes/deep/out` lead out of the scope root.
    await fs.symlink(outside, path.join(sb.roots.global, 'out'));
    await fs.symlink(outside, path.join(sb.roots.global, 'notes', 'out'));
  });
  afterEach(async () => {
    await sb.cleanup();
  });

  const at = (rel: string) => ({ path: `/memories/global/${rel}`, segments: rel.split('/') });

  /** The error of renaming `from` to `to` as the tool runs it: under the lock, mapped once. */
  async function renameError(from: string, to: string): Promise<string> {
    const b = sb.session.scopes.global as AvailableScope;
    const source = at(from);
    const dest = at(to);
    let error: unknown;
    try {
      await mapRenameErrors(b, source, dest, () => b.runtime.withLock(b.root, () => b.runtime.rename(b.root, source.segments, dest.segments)));
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(MemoryToolError);
    const message = (error as Error).message;
    expect(message).not.toContain(sb.dir);
    return message;
  }

  async function nothingMoved(): Promise<void> {
    expect((await fs.readdir(outside)).sort()).toEqual(['secret.txt']);
    expect(await fs.readFile(path.join(sb.roots.global, 'keep.md'), 'utf8')).toBe('keep\n');
    expect(await fs.readFile(path.join(sb.roots.global, 'notes', 'a.md'), 'utf8')).toBe('a\n');
  }

  it.each<[string, string, string, string]>([
    ['the destination escapes: it is named', 'keep.md', 'out/keep.md', 'Path /memories/global/out/keep.md would escape /memories directory'],
    ['the destination escapes deeper down', 'keep.md', 'out/a/b/keep.md', 'Path /memories/global/out/a/b/keep.md would escape /memories directory'],
    ['the destination escapes through a nested link', 'notes/a.md', 'notes/out/a.md', 'Path /memories/global/notes/out/a.md would escape /memories directory'],
    ['a directory whose destination escapes', 'notes', 'out/notes', 'Path /memories/global/out/notes would escape /memories directory'],
    ['the source escapes: it is named', 'out/secret.txt', 'got.md', 'Path /memories/global/out/secret.txt would escape /memories directory'],
    ['both escape: the source is named', 'out/secret.txt', 'notes/out/got.md', 'Path /memories/global/out/secret.txt would escape /memories directory'],
    // The other texts of a rename come from the same place.
    ['the destination exists', 'keep.md', 'notes/a.md', 'The destination /memories/global/notes/a.md already exists'],
    ['the source is missing', 'gone.md', 'new.md', 'The path /memories/global/gone.md does not exist'],
    ['a directory into itself', 'notes', 'notes/inner', 'Cannot rename /memories/global/notes to /memories/global/notes/inner: a directory cannot move inside itself.'],
  ])('%s', async (_name, from, to, expected) => {
    expect(await renameError(from, to)).toContain(expected);
    await nothingMoved();
  });

  // Through the tool, as a model calls it.
  it('the tool names the destination that escapes', async () => {
    const result = await sb.run({ command: 'rename', old_path: '/memories/global/keep.md', new_path: '/memories/global/out/keep.md' });
    expect(result).toEqual({ ok: false, output: 'Error: Path /memories/global/out/keep.md would escape /memories directory' });
    await nothingMoved();
  });
});
