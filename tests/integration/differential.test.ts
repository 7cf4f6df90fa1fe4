// Differential test against the protocol's reference implementation (protocol.md): random sequences
// of memory commands run against Cairn's MemoryService (global scope) and against
// BetaLocalFilesystemMemoryTool from @anthropic-ai/sdk, comparing every output and the trees.
// Cairn's `/memories/global/<rel>` corresponds to the reference's `/memories/<rel>`.
//
// Differences are allowed only when they belong to a class listed in protocol.md, "Where Cairn
// differs from the reference, on purpose" (see classifyDocumentedDifference). The property keeps
// away from the inputs whose documented difference would make the two trees diverge, so it can
// compare whole sequences strictly; each of those classes has its own deterministic test below.
//
// Reproduce a failure with CAIRN_DIFF_SEED=<seed> (and CAIRN_DIFF_RUNS=<n> for more runs).
import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { BetaLocalFilesystemMemoryTool } from '@anthropic-ai/sdk/tools/memory/node';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { makeSandbox, type Sandbox } from '../support/sandbox';

// ---- the two implementations, driven with the same command in reference form ----

/** A command as the reference takes it: every path is `/memories` or `/memories/<rel>`. */
type RefCommand =
  | { command: 'view'; path: string; view_range?: [number, number] }
  | { command: 'create'; path: string; file_text: string }
  | { command: 'str_replace'; path: string; old_str: string; new_str: string }
  | { command: 'insert'; path: string; insert_line: number; insert_text: string }
  | { command: 'delete'; path: string }
  | { command: 'rename'; old_path: string; new_path: string };

interface Outcome {
  ok: boolean;
  output: string;
}

const REF_ROOT = '/memories';
const CAIRN_ROOT = '/memories/global';

/** `/memories/<rel>` -> `/memories/global/<rel>`. */
function toCairnPath(refPath: string): string {
  if (refPath !== REF_ROOT && !refPath.startsWith(`${REF_ROOT}/`)) throw new Error(`not a reference path: ${refPath}`);
  return CAIRN_ROOT + refPath.slice(REF_ROOT.length);
}

function toCairnCommand(cmd: RefCommand): RefCommand {
  return cmd.command === 'rename'
    ? { ...cmd, old_path: toCairnPath(cmd.old_path), new_path: toCairnPath(cmd.new_path) }
    : { ...cmd, path: toCairnPath(cmd.path) };
}

/** Cairn's output in reference form: only the `/memories/global` prefix (a whole segment) is mapped. */
function toReferenceText(cairnText: string): string {
  return cairnText.replace(/\/memories\/global(?![\w-])/g, REF_ROOT);
}

/** Both sides of one comparison: fresh temp dirs on the same filesystem, so directory sizes agree. */
interface Pair {
  sandbox: Sandbox;
  refBase: string;
  ref: BetaLocalFilesystemMemoryTool;
  /** Host paths of the two memory roots whose trees are compared. */
  refRoot: string;
  cairnRoot: string;
  cleanup(): Promise<void>;
}

async function makePair(): Promise<Pair> {
  const sandbox = await makeSandbox();
  const refBase = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'cairn-diff-ref-')));
  const ref = await BetaLocalFilesystemMemoryTool.init(refBase);
  // The reference's init() creates its memory root; start Cairn's global scope in the same state.
  await fs.mkdir(sandbox.roots.global, { recursive: true, mode: 0o700 });
  return {
    sandbox,
    refBase,
    ref,
    refRoot: path.join(refBase, 'memories'),
    cairnRoot: sandbox.roots.global,
    cleanup: async () => {
      await sandbox.cleanup();
      await fs.rm(refBase, { recursive: true, force: true });
    },
  };
}

async function runReference(ref: BetaLocalFilesystemMemoryTool, cmd: RefCommand): Promise<Outcome> {
  try {
    let output: string;
    switch (cmd.command) {
      case 'view':
        output = await ref.view(cmd);
        break;
      case 'create':
        output = await ref.create(cmd);
        break;
      case 'str_replace':
        output = await ref.str_replace(cmd);
        break;
      case 'insert':
        output = await ref.insert(cmd);
        break;
      case 'delete':
        output = await ref.delete(cmd);
        break;
      case 'rename':
        output = await ref.rename(cmd);
        break;
    }
    return { ok: true, output };
  } catch (err) {
    // What a model sees when a handler throws.
    return { ok: false, output: `Error: ${(err as Error).message}` };
  }
}

async function runCairn(pair: Pair, cmd: RefCommand): Promise<Outcome> {
  const result = await pair.sandbox.run(toCairnCommand(cmd));
  return { ok: result.ok, output: toReferenceText(result.output) };
}

/** Every entry under a root: `dir/` for directories, `file: <json content>` for files, sorted. */
async function snapshotTree(root: string): Promise<string[]> {
  const out: string[] = [];
  const walk = async (dir: string, prefix: string): Promise<void> => {
    for (const entry of await fs.readdir(dir, { withFileTypes: true })) {
      const rel = prefix + entry.name;
      if (entry.isDirectory()) {
        out.push(`${rel}/`);
        await walk(path.join(dir, entry.name), `${rel}/`);
      } else {
        out.push(`${rel}: ${JSON.stringify(await fs.readFile(path.join(dir, entry.name), 'utf8'))}`);
      }
    }
  };
  await walk(root, '');
  return out.sort();
}

/** The content of `/memories/<rel>` in the reference tree, or null when it is not a file. */
async function readReferenceFile(pair: Pair, refPath: string): Promise<string | null> {
  const host = path.join(pair.refRoot, refPath.slice(REF_ROOT.length));
  try {
    if (!(await fs.stat(host)).isFile()) return null;
    return await fs.readFile(host, 'utf8');
  } catch {
    return null;
  }
}

// ---- the documented differences ----

/** The classes of protocol.md, "Where Cairn differs from the reference, on purpose". */
type DocumentedClass =
  /** Multi-line old_str works in Cairn; the reference matches line by line and finds nothing. */
  | 'multi-line-old-str'
  /** old_str twice within one line (and on no other line): Cairn matches the whole content and
   *  refuses it as multiple occurrences; the reference counts lines and replaces the first. */
  | 'old-str-repeated-within-a-line'
  /** Scope roots cannot be deleted or renamed: Cairn refuses with its own text. */
  | 'scope-root-delete-or-rename'
  /** Cairn's envelope errors the reference lacks (here: an empty old_str). */
  | 'envelope-error'
  /** "No error text ever contains a host path": where the reference fails with a raw OS error that
   *  names a host path, Cairn fails with its own text. Both fail, nothing changes. */
  | 'reference-error-leaks-host-path'
  /** A multi-line new_str: Cairn's snippet shows the whole changed region with two lines either
   *  side ("the changed region"); the reference shows only the first line's. Same file on disk. */
  | 'multi-line-new-str-snippet'
  /** A failed command changes nothing: the reference creates the destination's parents before it
   *  finds a rename's source missing; Cairn creates nothing. Both fail with the same text. */
  | 'failed-rename-creates-nothing'
  /** A trailing slash is normalized: Cairn prints the canonical path, the reference echoes it (and
   *  doubles the slash in entries). Not generated by the property. */
  | 'trailing-slash-normalized'
  /** A scope root never written to reads as empty and is not created by a read: Cairn shows `0B`,
   *  the reference's init() creates its root (`4K`). Not generated by the property. */
  | 'missing-root-reads-empty';

/** Documented classes after which both trees are still expected to be equal. */
const STATE_PRESERVING: ReadonlySet<DocumentedClass> = new Set<DocumentedClass>(['reference-error-leaks-host-path', 'multi-line-new-str-snippet']);

/** Non-overlapping occurrences, as Cairn counts them. */
function occurrences(haystack: string, needle: string): number {
  let n = 0;
  for (let i = haystack.indexOf(needle); i !== -1; i = haystack.indexOf(needle, i + needle.length)) n++;
  return n;
}

/**
 * Inputs whose documented difference changes what ends up on disk; the property does not run them
 * (each has a deterministic test). `before` is the target file's content, null when it is not a file.
 */
function documentedDivergentInput(cmd: RefCommand, before: string | null, present: readonly string[] = []): DocumentedClass | null {
  switch (cmd.command) {
    case 'str_replace': {
      if (cmd.old_str === '') return 'envelope-error';
      if (cmd.old_str.includes('\n')) return 'multi-line-old-str';
      if (before === null) return null;
      const lines = before.split('\n').filter((l) => l.includes(cmd.old_str));
      return lines.length === 1 && occurrences(lines[0]!, cmd.old_str) > 1 ? 'old-str-repeated-within-a-line' : null;
    }
    case 'delete':
      return cmd.path === REF_ROOT ? 'scope-root-delete-or-rename' : null;
    case 'rename': {
      if (cmd.old_path === REF_ROOT || cmd.new_path === REF_ROOT) return 'scope-root-delete-or-rename';
      const rel = (p: string) => p.slice(REF_ROOT.length + 1);
      const missingSource = !present.includes(rel(cmd.old_path)) && !present.includes(rel(cmd.new_path));
      const intoItself = cmd.new_path.startsWith(`${cmd.old_path}/`);
      return missingSource || intoItself ? 'failed-rename-creates-nothing' : null;
    }
    default:
      return null;
  }
}

/**
 * Classifies one command's differing outputs (both already in reference form). Returns the
 * documented class the difference belongs to, or null when it is undocumented (a Cairn bug, or a
 * difference protocol.md must first document). `before` is the target file's content before the
 * command, null when it was not a file; `hostDirs` are the temp dirs of both sides.
 */
function classifyDocumentedDifference(
  cmd: RefCommand,
  before: string | null,
  ref: Outcome,
  cairn: Outcome,
  hostDirs: readonly string[],
): DocumentedClass | null {
  const leaks = (text: string) => hostDirs.some((d) => text.includes(d));
  // Cairn never leaks a host path, whatever the class.
  if (leaks(cairn.output)) return null;
  const input = documentedDivergentInput(cmd, before);
  switch (input) {
    case 'envelope-error':
      // Cairn refuses an empty old_str before touching the file.
      return !cairn.ok && cairn.output.startsWith('Error: No replacement was performed: old_str is empty.') ? input : null;
    case 'multi-line-old-str':
      // The reference cannot match across lines; Cairn may succeed, or fail with its own text.
      return !ref.ok && ref.output.startsWith('Error: No replacement was performed, old_str `') ? input : null;
    case 'old-str-repeated-within-a-line': {
      if (cmd.command !== 'str_replace' || before === null) return null;
      const line = before.split('\n').findIndex((l) => l.includes(cmd.old_str)) + 1;
      return !cairn.ok && cairn.output.endsWith(` in lines: ${line}. Please ensure it is unique`) ? input : null;
    }
    case 'scope-root-delete-or-rename':
      return !cairn.ok && cairn.output.startsWith(`Error: ${REF_ROOT} is a scope root and cannot be`) ? input : null;
    case 'failed-rename-creates-nothing':
      // Decided without the tree here: otherwise fall through to the general classes.
      if (!cairn.ok && (cairn.output === ref.output || cairn.output.endsWith('a directory cannot move inside itself.'))) return input;
      break;
    default:
      break;
  }
  if (cmd.command === 'str_replace' && cmd.new_str.includes('\n') && ref.ok && cairn.ok && cairn.output.startsWith(ref.output)) {
    return 'multi-line-new-str-snippet';
  }
  if (!ref.ok && !cairn.ok && leaks(ref.output)) return 'reference-error-leaks-host-path';
  return null;
}

// ---- generated command sequences over a small universe ----

/** Names that collide often: files, directories, a file where a directory is expected, depth 3. */
const NAMES = ['a.md', 'b.md', 'notes', 'notes/a.md', 'notes/deep', 'notes/deep/c.md', 'x'] as const;
const RENAME_TARGETS = [...NAMES, 'c.md', 'notes/b.md', 'sub/d.md', 'x/y.md'] as const;
/** Line fragments: contents are built from them and old_str is drawn from them. */
const FRAGMENTS = ['alpha', 'beta', 'a', 'ab', 'TODO: fix', '- item', 'x = 1', '$&', "$'", '$$', ' '] as const;

const lineArb = fc.array(fc.constantFrom(...FRAGMENTS), { maxLength: 3 }).map((parts) => parts.join(' '));
/** Lines (empty ones included) with or without a trailing newline; possibly empty. */
const textArb = fc
  .tuple(fc.array(lineArb, { maxLength: 5 }), fc.boolean())
  .map(([lines, trailing]) => lines.join('\n') + (trailing && lines.length > 0 ? '\n' : ''));

/**
 * A target path: a fixed name, or (resolved when the command runs) the n-th file, or file or
 * directory, present in the tree then, so that edits land on existing files often.
 */
type PathSpec = { kind: 'name'; rel: string } | { kind: 'existing'; index: number; dirs: boolean };

const nameArb = (names: readonly string[]) => fc.constantFrom(...names).map((rel): PathSpec => ({ kind: 'name', rel }));
const existingArb = (dirs: boolean) => fc.nat(20).map((index): PathSpec => ({ kind: 'existing', index, dirs }));
const pathArb = (names: readonly string[], weights: { name: number; existing: number }, dirs: boolean) =>
  fc.oneof({ weight: weights.name, arbitrary: nameArb(names) }, { weight: weights.existing, arbitrary: existingArb(dirs) });

/** How old_str is chosen; `slice` is resolved against the file's content when the command runs. */
type OldStrSpec = { kind: 'fragment'; text: string } | { kind: 'slice'; line: number; start: number; length: number };

type Op =
  | { op: 'view'; path: PathSpec; view_range?: [number, number] }
  | { op: 'create'; path: PathSpec; file_text: string }
  | { op: 'str_replace'; path: PathSpec; old: OldStrSpec; new_str: string }
  | { op: 'insert'; path: PathSpec; insert_line: number; insert_text: string }
  | { op: 'delete'; path: PathSpec }
  | { op: 'rename'; old_path: PathSpec; new_path: PathSpec };

const oldStrArb: fc.Arbitrary<OldStrSpec> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('slice' as const),
      line: fc.nat(6),
      start: fc.nat(10),
      length: fc.integer({ min: 1, max: 14 }),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('fragment' as const),
      text: fc.constantFrom(...FRAGMENTS, 'alpha beta', 'not in any file'),
    }),
  },
);

const opArb: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.record(
      {
        op: fc.constant('view' as const),
        // The root itself, fixed names, a missing name, and existing files and directories.
        path: fc.oneof(fc.constant<PathSpec>({ kind: 'name', rel: '' }), pathArb([...NAMES, 'missing.md'], { name: 1, existing: 2 }, true)),
        view_range: fc.tuple(fc.integer({ min: -1, max: 8 }), fc.oneof(fc.constant(-1), fc.integer({ min: -2, max: 8 }))),
      },
      { requiredKeys: ['op', 'path'] },
    ),
  },
  { weight: 4, arbitrary: fc.record({ op: fc.constant('create' as const), path: pathArb(NAMES, { name: 5, existing: 1 }, false), file_text: textArb }) },
  {
    weight: 4,
    arbitrary: fc.record({
      op: fc.constant('str_replace' as const),
      path: pathArb(NAMES, { name: 1, existing: 4 }, false),
      old: oldStrArb,
      // Replacement patterns and newlines included: both must insert new_str literally.
      new_str: fc.array(fc.constantFrom(...FRAGMENTS, '\n', '$1', '$`', ''), { maxLength: 3 }).map((p) => p.join('')),
    }),
  },
  {
    weight: 3,
    arbitrary: fc.record({
      op: fc.constant('insert' as const),
      path: pathArb(NAMES, { name: 1, existing: 4 }, false),
      insert_line: fc.integer({ min: -1, max: 8 }),
      insert_text: textArb,
    }),
  },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('delete' as const), path: pathArb(NAMES, { name: 1, existing: 1 }, true) }) },
  {
    weight: 2,
    arbitrary: fc.record({ op: fc.constant('rename' as const), old_path: pathArb(NAMES, { name: 1, existing: 2 }, true), new_path: nameArb(RENAME_TARGETS) }),
  },
);

/** Files and directories (relative paths, sorted) in a memory root. */
async function listEntries(root: string): Promise<{ files: string[]; all: string[] }> {
  const tree = await snapshotTree(root);
  const all = tree.map((e) => (e.endsWith('/') ? e.slice(0, -1) : e.slice(0, e.indexOf(': '))));
  return { files: tree.filter((e) => !e.endsWith('/')).map((e) => e.slice(0, e.indexOf(': '))), all };
}

function resolvePath(spec: PathSpec, entries: { files: string[]; all: string[] }): string {
  let rel = spec.kind === 'name' ? spec.rel : '';
  if (spec.kind === 'existing') {
    const pool = spec.dirs ? entries.all : entries.files;
    rel = pool.length > 0 ? pool[spec.index % pool.length]! : NAMES[spec.index % NAMES.length]!;
  }
  return rel === '' ? REF_ROOT : `${REF_ROOT}/${rel}`;
}

/** Turns a generated op into a concrete command against the tree as it is now. */
async function resolveOp(pair: Pair, op: Op): Promise<{ cmd: RefCommand; before: string | null; present: string[] }> {
  const entries = await listEntries(pair.refRoot);
  const target = resolvePath(op.op === 'rename' ? op.old_path : op.path, entries);
  const before = await readReferenceFile(pair, target);
  let cmd: RefCommand;
  switch (op.op) {
    case 'view':
      cmd = op.view_range ? { command: 'view', path: target, view_range: op.view_range } : { command: 'view', path: target };
      break;
    case 'create':
      cmd = { command: 'create', path: target, file_text: op.file_text };
      break;
    case 'str_replace': {
      let oldStr = op.old.kind === 'fragment' ? op.old.text : 'alpha';
      if (op.old.kind === 'slice' && before !== null) {
        const lines = before.split('\n');
        const line = lines[op.old.line % lines.length]!;
        const start = op.old.start % (line.length + 1);
        oldStr = line.slice(start, start + op.old.length) || line || 'alpha';
      }
      cmd = { command: 'str_replace', path: target, old_str: oldStr, new_str: op.new_str };
      break;
    }
    case 'insert':
      cmd = { command: 'insert', path: target, insert_line: op.insert_line, insert_text: op.insert_text };
      break;
    case 'delete':
      cmd = { command: 'delete', path: target };
      break;
    case 'rename':
      cmd = { command: 'rename', old_path: target, new_path: resolvePath(op.new_path, entries) };
      break;
  }
  return { cmd, before, present: entries.all };
}

async function expectSameTrees(pair: Pair): Promise<void> {
  expect(await snapshotTree(pair.cairnRoot)).toEqual(await snapshotTree(pair.refRoot));
}

const numRuns = Number(process.env.CAIRN_DIFF_RUNS ?? 60);
const seed = process.env.CAIRN_DIFF_SEED === undefined ? undefined : Number(process.env.CAIRN_DIFF_SEED);

describe('Cairn against the reference implementation', () => {
  it('agrees on every output and on the trees for random command sequences', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(opArb, { minLength: 1, maxLength: 30 }), async (ops) => {
        const pair = await makePair();
        const transcript: string[] = [];
        const fail = (why: string) => new Error(`${why}\n--- transcript (reference paths) ---\n${transcript.join('\n')}`);
        try {
          for (const op of ops) {
            const { cmd, before, present } = await resolveOp(pair, op);
            const skipped = documentedDivergentInput(cmd, before, present);
            if (skipped) {
              transcript.push(`(not run, documented divergence ${skipped}) ${JSON.stringify(cmd)}`);
              continue;
            }
            const ref = await runReference(pair.ref, cmd);
            const cairn = await runCairn(pair, cmd);
            if (cairn.output.includes(pair.sandbox.dir)) throw fail(`Cairn's output names a host path: ${cairn.output}`);
            transcript.push(`> ${JSON.stringify(cmd)}\n  reference: ${JSON.stringify(ref.output)}`);
            if (ref.output !== cairn.output || ref.ok !== cairn.ok) {
              transcript.push(`  cairn:     ${JSON.stringify(cairn.output)}`);
              const cls = classifyDocumentedDifference(cmd, before, ref, cairn, [pair.refBase, pair.sandbox.dir]);
              if (cls === null) throw fail('Undocumented difference in the output of the last command');
              if (!STATE_PRESERVING.has(cls)) throw fail(`Documented divergent class ${cls} reached the property`);
              transcript.push(`  (documented: ${cls})`);
            }
            const [refTree, cairnTree] = await Promise.all([snapshotTree(pair.refRoot), snapshotTree(pair.cairnRoot)]);
            if (JSON.stringify(refTree) !== JSON.stringify(cairnTree)) {
              throw fail(`Trees differ after the last command\n  reference: ${JSON.stringify(refTree)}\n  cairn:     ${JSON.stringify(cairnTree)}`);
            }
          }
          await expectSameTrees(pair);
        } finally {
          await pair.cleanup();
        }
      }),
      { numRuns, ...(seed === undefined ? {} : { seed }) },
    );
  });
});

// ---- one deterministic test per documented class ----

/** Runs `fn` with a fresh pair, cleaned up afterwards. */
async function withPair<T>(fn: (pair: Pair) => Promise<T>): Promise<T> {
  const pair = await makePair();
  try {
    return await fn(pair);
  } finally {
    await pair.cleanup();
  }
}

/** Runs one command on both sides and classifies any difference in the outputs. */
async function runBoth(pair: Pair, cmd: RefCommand): Promise<{ ref: Outcome; cairn: Outcome; before: string | null; cls: DocumentedClass | null }> {
  const before = await readReferenceFile(pair, cmd.command === 'rename' ? cmd.old_path : cmd.path);
  const ref = await runReference(pair.ref, cmd);
  const cairn = await runCairn(pair, cmd);
  const same = ref.ok === cairn.ok && ref.output === cairn.output;
  const cls = same ? null : classifyDocumentedDifference(cmd, before, ref, cairn, [pair.refBase, pair.sandbox.dir]);
  return { ref, cairn, before, cls };
}

/** Runs one command on both sides and expects identical outcomes. */
async function agree(pair: Pair, cmd: RefCommand): Promise<Outcome> {
  const { ref, cairn } = await runBoth(pair, cmd);
  expect(cairn).toEqual(ref);
  return cairn;
}

async function cairnFile(pair: Pair, rel: string): Promise<string> {
  return fs.readFile(path.join(pair.cairnRoot, rel), 'utf8');
}

describe('the documented differences, exactly', () => {
  it('multi-line old_str: Cairn replaces it, the reference finds no match', () =>
    withPair(async (pair) => {
      await agree(pair, { command: 'create', path: '/memories/a.md', file_text: 'one\ntwo\nthree\n' });
      const r = await runBoth(pair, { command: 'str_replace', path: '/memories/a.md', old_str: 'one\ntwo', new_str: 'ONE' });
      expect(r.ref).toEqual({ ok: false, output: 'Error: No replacement was performed, old_str `one\ntwo` did not appear verbatim in /memories/a.md.' });
      expect(r.cairn).toEqual({
        ok: true,
        output: 'The memory file has been edited. Here is the snippet showing the change (with line numbers):\n     1\tONE\n     2\tthree\n     3\t',
      });
      expect(r.cls).toBe('multi-line-old-str');
      expect(await cairnFile(pair, 'a.md')).toBe('ONE\nthree\n');
    }));

  it('old_str twice within one line: Cairn refuses it as multiple occurrences, the reference replaces the first', () =>
    withPair(async (pair) => {
      await agree(pair, { command: 'create', path: '/memories/a.md', file_text: 'alpha alpha\nbeta' });
      const r = await runBoth(pair, { command: 'str_replace', path: '/memories/a.md', old_str: 'alpha', new_str: 'A' });
      expect(r.ref.ok).toBe(true);
      expect(r.cairn).toEqual({
        ok: false,
        output: 'Error: No replacement was performed. Multiple occurrences of old_str `alpha` in lines: 1. Please ensure it is unique',
      });
      expect(r.cls).toBe('old-str-repeated-within-a-line');
      expect(await cairnFile(pair, 'a.md')).toBe('alpha alpha\nbeta');
      // Occurrences on several lines: both refuse alike, listing each line once.
      await agree(pair, { command: 'str_replace', path: '/memories/a.md', old_str: 'a', new_str: 'A' });
    }));

  it('the scope root cannot be deleted or renamed: Cairn refuses with its own text', () =>
    withPair(async (pair) => {
      await agree(pair, { command: 'create', path: '/memories/a.md', file_text: 'keep' });
      const del = await runBoth(pair, { command: 'delete', path: '/memories' });
      expect(del.ref).toEqual({ ok: false, output: 'Error: Cannot delete the /memories directory itself' });
      expect(del.cairn).toEqual({ ok: false, output: 'Error: /memories is a scope root and cannot be deleted; delete the files inside it instead.' });
      expect(del.cls).toBe('scope-root-delete-or-rename');
      const from = await runBoth(pair, { command: 'rename', old_path: '/memories', new_path: '/memories/x' });
      expect(from.ref).toEqual({ ok: false, output: 'Error: Cannot rename the /memories directory itself' });
      expect(from.cairn).toEqual({ ok: false, output: 'Error: /memories is a scope root and cannot be renamed.' });
      expect(from.cls).toBe('scope-root-delete-or-rename');
      const to = await runBoth(pair, { command: 'rename', old_path: '/memories/a.md', new_path: '/memories' });
      expect(to.ref).toEqual({ ok: false, output: 'Error: The destination /memories already exists' });
      expect(to.cairn).toEqual({ ok: false, output: 'Error: /memories is a scope root and cannot be renamed.' });
      expect(to.cls).toBe('scope-root-delete-or-rename');
      await expectSameTrees(pair);
    }));

  it('a view of the scope root matches the reference root view after mapping (header, first line, entries)', () =>
    withPair(async (pair) => {
      await agree(pair, { command: 'create', path: '/memories/notes/deep/c.md', file_text: 'deep' });
      await agree(pair, { command: 'create', path: '/memories/b.md', file_text: 'hello' });
      const out = await agree(pair, { command: 'view', path: '/memories' });
      expect(out.output).toBe(
        [
          "Here're the files and directories up to 2 levels deep in /memories, excluding hidden items and node_modules:",
          '4K\t/memories',
          '5B\t/memories/b.md',
          '4K\t/memories/notes/',
          '4K\t/memories/notes/deep/',
        ].join('\n'),
      );
      // Only the `/memories/global` prefix is mapped: the raw Cairn text names the scope.
      expect((await pair.sandbox.run({ command: 'view', path: '/memories/global' })).output.split('\n')[1]).toBe('4K\t/memories/global');
    }));

  it('new_str with `$&`-style patterns is inserted literally by both', () =>
    withPair(async (pair) => {
      await agree(pair, { command: 'create', path: '/memories/a.md', file_text: 'price: X\n' });
      await agree(pair, { command: 'str_replace', path: '/memories/a.md', old_str: 'X', new_str: "$& $$ $' $` $1" });
      expect(await cairnFile(pair, 'a.md')).toBe("price: $& $$ $' $` $1\n");
      await expectSameTrees(pair);
    }));

  it("Cairn's envelope: an empty old_str is refused", () =>
    withPair(async (pair) => {
      await agree(pair, { command: 'create', path: '/memories/a.md', file_text: 'one' });
      const r = await runBoth(pair, { command: 'str_replace', path: '/memories/a.md', old_str: '', new_str: 'X' });
      // The reference matches '' at the start of the only line and inserts new_str there.
      expect(r.ref.ok).toBe(true);
      expect(r.ref.output).toContain('The memory file has been edited.');
      expect(r.cairn).toEqual({ ok: false, output: 'Error: No replacement was performed: old_str is empty. Give the exact text in /memories/a.md to replace.' });
      expect(r.cls).toBe('envelope-error');
      expect(await cairnFile(pair, 'a.md')).toBe('one');
    }));

  it('no host path in errors: where the reference leaks one, Cairn fails with its own text and nothing changes', () =>
    withPair(async (pair) => {
      await agree(pair, { command: 'create', path: '/memories/notes', file_text: 'a file' });
      const expected: Record<string, string> = {
        view: 'Error: The path /memories/notes/a.md does not exist. Please provide a valid path.',
        create: 'Error: Cannot use /memories/notes/a.md: one of its parent paths is a file, not a directory.',
        str_replace: 'Error: The path /memories/notes/a.md does not exist. Please provide a valid path.',
        insert: 'Error: The path /memories/notes/a.md does not exist. Please provide a valid path.',
        delete: 'Error: The path /memories/notes/a.md does not exist',
      };
      const cmds: RefCommand[] = [
        { command: 'view', path: '/memories/notes/a.md' },
        { command: 'create', path: '/memories/notes/a.md', file_text: 'x' },
        { command: 'str_replace', path: '/memories/notes/a.md', old_str: 'x', new_str: 'y' },
        { command: 'insert', path: '/memories/notes/a.md', insert_line: 0, insert_text: 'y' },
        { command: 'delete', path: '/memories/notes/a.md' },
      ];
      for (const cmd of cmds) {
        const r = await runBoth(pair, cmd);
        expect(r.ref.output).toContain(pair.refBase);
        expect(r.cairn).toEqual({ ok: false, output: expected[cmd.command] });
        expect(r.cls).toBe('reference-error-leaks-host-path');
      }
      await expectSameTrees(pair);
    }));
});

// ---- differences found by this test and adopted as Cairn's behaviour (README, "Differences") ----

describe('further differences, exactly', () => {
  it('rename of a missing source onto an existing destination reports the destination, as the reference does', () =>
    withPair(async (pair) => {
      await agree(pair, { command: 'create', path: '/memories/a.md', file_text: 'x' });
      await agree(pair, { command: 'rename', old_path: '/memories/zz.md', new_path: '/memories/a.md' });
      await agree(pair, { command: 'create', path: '/memories/notes/a.md', file_text: 'x' });
      await agree(pair, { command: 'rename', old_path: '/memories/notes', new_path: '/memories/notes/a.md' });
    }));

  it('a failed rename changes nothing, where the reference leaves the destination parents behind', () =>
    withPair(async (pair) => {
      const r = await runBoth(pair, { command: 'rename', old_path: '/memories/zz.md', new_path: '/memories/notes/deep/c.md' });
      expect(r.cairn).toEqual({ ok: false, output: 'Error: The path /memories/zz.md does not exist' });
      expect(r.cairn).toEqual(r.ref);
      expect(await snapshotTree(pair.refRoot)).toEqual(['notes/', 'notes/deep/']);
      expect(await snapshotTree(pair.cairnRoot)).toEqual([]);
    }));

  it("a multi-line new_str: Cairn's snippet covers the whole changed region", () =>
    withPair(async (pair) => {
      await agree(pair, { command: 'create', path: '/memories/a.md', file_text: 'one\ntwo\nthree\nfour\nfive\nsix\n' });
      const r = await runBoth(pair, { command: 'str_replace', path: '/memories/a.md', old_str: 'two', new_str: 'A\nB\nC\nD' });
      expect(r.cls).toBe('multi-line-new-str-snippet');
      expect(r.cairn.output).toBe(
        'The memory file has been edited. Here is the snippet showing the change (with line numbers):\n' +
          ['     1\tone', '     2\tA', '     3\tB', '     4\tC', '     5\tD', '     6\tthree', '     7\tfour'].join('\n'),
      );
      await expectSameTrees(pair);
    }));

  it('a trailing slash is normalized to the canonical path', () =>
    withPair(async (pair) => {
      await agree(pair, { command: 'create', path: '/memories/notes/b.md', file_text: 'x' });
      const ref = await runReference(pair.ref, { command: 'view', path: '/memories/notes/' });
      expect(ref.output).toContain('/memories/notes//b.md');
      const cairn = await pair.sandbox.run({ command: 'view', path: '/memories/global/notes/' });
      expect(cairn.output).toBe(
        "Here're the files and directories up to 2 levels deep in /memories/global/notes, excluding hidden items and node_modules:\n4K\t/memories/global/notes\n1B\t/memories/global/notes/b.md",
      );
    }));

  it('a scope root never written to reads as empty (0B) and is not created by the read', async () => {
    const sandbox = await makeSandbox();
    try {
      const view = await sandbox.run({ command: 'view', path: CAIRN_ROOT });
      expect(view.output.split('\n')[1]).toBe(`0B\t${CAIRN_ROOT}`);
      await expect(fs.access(sandbox.roots.global)).rejects.toThrow();
    } finally {
      await sandbox.cleanup();
    }
  });
});
