/**
 * `cairn import`: other memory into Cairn's inbox, for a person's review; nothing is
 * written to memory here.
 *   cairn import --from claude|codex|cursor|aegis|kimchi|markdown PATH [--scope S] [--dry-run] [--json]
 *   cairn import --from cairn FILE|- [--scope S] [--dry-run] [--json]
 * The readers and the checks are src/main/import (entries.ts, sources.ts, propose.ts); a tar of
 * `cairn export` is memory-tar.ts. Exit 0 done (bad lines are reported and skipped), 1 nothing could
 * be imported (a missing file, an archive refused, a scope not available here), 2 usage error.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Readable } from 'node:stream';
import { SCOPES, type Scope } from '../../common/memory/constants';
import { MemoryToolError } from '../../common/memory/errors';
import { claudeProjectDirName } from '../harvest/claude-transcript';
import { suggestedTarget } from '../inbox/inbox-store';
import type { MemoryHome } from '../host/memory-home';
import type { BadLine, ImportEntry } from '../import/entries';
import { allMemoryLines } from '../import/memory-files';
import { proposeTarFiles, readMemoryTar, type TarFileOutcome } from '../import/memory-tar';
import { entryScope, leftOutText, proposeEntries, sessionCheckout, type EntryOutcome, type LeftOutReason } from '../import/propose';
import { IMPORT_FORMATS, ImportError, readSource, sourceFiles, type ImportFormat, type FoundSource, type SkippedSource, type SourceFile } from '../import/sources';
import type { MemorySession } from '../memory/session';
import { openRegular } from '../outside/outside-file';
import { findGitRoot } from '../workspaces/identity';
import { SESSION_OPTIONS, sessionFromFlags, withMemoryHome, type SessionFlags } from './session-flags';
import { refusing, type CliIo } from './tool-command';
import { commandArgs } from './command-args';
import { IMPORT_HELP, UsageError } from './usage';

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

const PRESENT_WORDS: Readonly<Record<string, string>> = {
  'already-in-memory': 'already in memory',
  'already-in-inbox': 'already waiting in the inbox',
  'duplicate-in-batch': 'repeated in what was imported',
};

interface Flags extends SessionFlags {
  from?: string | undefined;
  scope?: string | undefined;
  'dry-run'?: boolean | undefined;
  json?: boolean | undefined;
}

export async function importCommand(args: string[], io: CliIo): Promise<number> {
  const parsed = commandArgs(args, io, IMPORT_HELP, { ...SESSION_OPTIONS, from: { type: 'string' }, scope: { type: 'string' }, 'dry-run': { type: 'boolean' }, json: { type: 'boolean' } });
  if (!parsed) return 0;
  const { values, positionals } = parsed;
  const formats = ['cairn', ...IMPORT_FORMATS];
  if (values.from === undefined) throw new UsageError(`say what to import with --from (${formats.join(', ')})`);
  if (!formats.includes(values.from)) throw new UsageError(`--from takes one of ${formats.join(', ')}; got ${JSON.stringify(values.from)}`);
  if (values.scope !== undefined && !(SCOPES as readonly string[]).includes(values.scope)) throw new UsageError(`--scope is one of ${SCOPES.join(', ')}`);
  if (positionals.length > 1) throw new UsageError('name one file or directory to import');
  if (values.cwd !== undefined && values.workspace !== undefined) throw new UsageError('give --cwd or --workspace, not both');
  if (values.from === 'cairn') return importTar(positionals[0] ?? '-', values, io);
  if (positionals.length === 0) throw new UsageError(`name the file or directory to import: cairn import --from ${values.from} PATH`);
  return importEntries(values.from as ImportFormat, positionals[0]!, values, io);
}

/** The scopes of `needed` the session cannot take, with why; a MemoryToolError naming them all. */
function checkScopes(session: MemorySession, needed: Iterable<Scope>, what: string): void {
  const missing = [...new Set(needed)].filter((s) => !session.scopes[s].available);
  if (missing.length === 0) return;
  const reasons = missing.map((s) => {
    const b = session.scopes[s];
    return `/memories/${s} is not available here (${b.available ? '' : b.reason})`;
  });
  throw new MemoryToolError(`${what} go to ${missing.join(' and ')} memory, but ${reasons.join('; ')}. Run this in the checkout they belong to (or give --cwd DIR or --workspace ID), or choose another scope with --scope. Nothing was imported.`);
}

async function importEntries(format: ImportFormat, target: string, values: Flags, io: CliIo): Promise<number> {
  let found: FoundSource[];
  let skipped: SkippedSource[];
  try {
    ({ files: found, skipped } = await sourceFiles(format, target));
  } catch (err) {
    if (!(err instanceof ImportError)) throw err;
    io.stderr.write(`cairn import: ${err.message}\n`);
    return 1;
  }
  // What cannot be read (a link the rule does not follow, a FIFO, a file too large) is skipped and said.
  const readable: Array<{ source: SourceFile; entries: ImportEntry[]; bad: BadLine[] }> = [];
  for (const source of found) {
    try {
      readable.push({ source, ...(await readSource(format, source)) });
    } catch (err) {
      if (!(err instanceof ImportError)) throw err;
      skipped.push({ shown: source.shown, reason: err.message, linkTo: null });
    }
  }
  if (readable.length === 0) {
    io.stderr.write(`cairn import: nothing could be read; nothing was imported:\n${skippedLines(skipped).join('\n')}\n`);
    return 1;
  }
  const sources: SourceFile[] = readable.map((r) => r.source);
  return withMemoryHome(values, (services) =>
    refusing(io, async () => {
      // The session: the flags', else the checkout the files are in (for Claude Code's auto
      // memory, the checkout its folder is named after), else the current directory.
      const cwd = values.cwd ?? (values.workspace === undefined ? await checkoutOf(sources, services, values.scope !== undefined) : undefined);
      const session = await sessionFromFlags(services, { ...values, cwd });
      const read = readable;
      const scope = values.scope as Scope | undefined;
      checkScopes(session, read.flatMap((r) => r.entries.map((e) => entryScope(e, r.source, scope))), 'Entries of what you import');
      const available = SCOPES.filter((s) => session.scopes[s].available);
      const memoryLines = await allMemoryLines(session, available);
      const outcomes = proposeEntries(read, { format, inbox: services.inbox, session, memoryLines, scope, cwd: sessionCheckout(session), dryRun: values['dry-run'] === true });
      const bad = read.flatMap((r) => r.bad.map((b) => ({ file: r.source.shown, ...b })));
      report(io, values, read.map((r) => r.source.shown), outcomes, bad, skipped);
      return 0;
    }),
  );
}

/**
 * The checkout the sources belong to: the git checkout a file is in; for Claude Code's auto memory
 * (`~/.claude/projects/<encoded checkout>/memory`), the current checkout or a registered one whose
 * path Claude Code encodes as that folder's name. Auto memory of a checkout not found is refused
 * (its entries would land in another checkout's workspace) unless --cwd, --workspace or --scope says.
 */
async function checkoutOf(sources: readonly SourceFile[], services: MemoryHome, scopeGiven: boolean): Promise<string | undefined> {
  const first = sources[0]!;
  if (first.autoMemoryOf === undefined) return (await findGitRoot(path.dirname(first.file))) ?? undefined;
  const here = (await findGitRoot(process.cwd())) ?? process.cwd();
  const candidates = [here, ...services.registry.list().flatMap((e) => (e.kind === 'local' && e.path ? [e.path] : []))];
  const found = candidates.find((dir) => claudeProjectDirName(dir) === first.autoMemoryOf);
  if (found !== undefined || scopeGiven) return found;
  throw new MemoryToolError(
    `${first.shown} is Claude Code's auto memory of a checkout other than this one (and of no registered workspace), so its entries have no workspace here. Run this in that checkout, or give --cwd DIR or --workspace ID, or --scope global.`,
  );
}

/** A skipped file as a person reads it: its name, where its link leads, and why. */
function skippedLines(skipped: readonly SkippedSource[]): string[] {
  return skipped.map((s) => `  ${s.shown}${s.linkTo === null ? '' : ` -> ${s.linkTo}`}: ${s.reason}`);
}

function report(io: CliIo, values: Flags, files: string[], outcomes: EntryOutcome[], bad: Array<BadLine & { file: string }>, skipped: readonly SkippedSource[]): void {
  const proposed = outcomes.filter((o) => o.status === 'proposed');
  const present = outcomes.filter((o) => o.status === 'present');
  const refused = outcomes.filter((o) => o.status === 'refused');
  // Entries left out by a bound, by which (a count and where they start, not each one: there may be many).
  const leftOut = (['import-cap', 'inbox-full'] as const)
    .map((reason) => ({ reason, of: outcomes.filter((o) => o.status === 'left-out' && o.reason === reason) }))
    .filter((l) => l.of.length > 0)
    .map(({ reason, of }) => ({ reason, entries: of.length, from: { file: of[0]!.shown, line: of[0]!.line }, message: leftOutText(reason, of.length, { from: `${of[0]!.shown} line ${of[0]!.line}` }) }));
  if (values.json) {
    io.stdout.write(
      `${JSON.stringify(
        {
          files,
          dryRun: values['dry-run'] === true,
          proposed: proposed.map((o) => ({ file: o.shown, line: o.line, id: o.item?.id ?? null, category: o.candidate!.category, scope: o.candidate!.scope, text: o.candidate!.text, target: suggestedTarget(o.candidate!) })),
          present: present.map((o) => ({ file: o.shown, line: o.line, reason: o.reason })),
          refused: refused.map((o) => ({ file: o.shown, line: o.line, reason: o.reason, detail: o.detail })),
          bad: bad.map((b) => ({ file: b.file, line: b.line, reason: b.reason })),
          skipped: skipped.map((s) => ({ file: s.shown, linkTo: s.linkTo, reason: s.reason })),
          leftOut,
        },
        null,
        2,
      )}\n`,
    );
    return;
  }
  const out: string[] = [`Read ${plural(files.length, 'file')} (${files.join(', ')}): ${plural(outcomes.length, 'entry').replace(/ys$/, 'ies')}.`];
  if (skipped.length > 0) out.push(`Skipped ${plural(skipped.length, 'file')}, not read:`, ...skippedLines(skipped));
  const verb = values['dry-run'] ? 'Would propose' : 'Proposed';
  out.push(`${verb} ${proposed.length} for your review in the inbox${values['dry-run'] ? ' (a dry run: nothing was added)' : ''}.`);
  for (const o of proposed) out.push(`  ${o.item ? `${o.item.id}  ` : ''}${o.candidate!.category}  ${suggestedTarget(o.candidate!)}  ${o.candidate!.text}`);
  if (present.length > 0) {
    const by = Object.entries(PRESENT_WORDS)
      .map(([r, words]) => [present.filter((o) => o.reason === r).length, words] as const)
      .filter(([n]) => n > 0)
      .map(([n, words]) => `${n} ${words}`);
    out.push(`Already present: ${present.length} (${by.join(', ')}).`);
  }
  if (refused.length > 0) {
    out.push(`Refused: ${refused.length}.`);
    for (const o of refused) out.push(`  ${o.shown} line ${o.line}: ${o.detail ?? o.reason}`);
  }
  if (bad.length > 0) {
    out.push(`Bad lines, skipped: ${bad.length}.`);
    for (const b of bad) out.push(`  ${b.file} line ${b.line}: ${b.reason}`);
  }
  for (const l of leftOut) out.push(l.message);
  if (proposed.length > 0 && !values['dry-run']) out.push('Nothing is in memory until you approve it: cairn inbox list, cairn inbox approve ID (or the app\u2019s Inbox).');
  io.stdout.write(`${out.join('\n')}\n`);
}

/** `--from cairn`: a tar of `cairn export`, from FILE or stdin (`-`). */
async function importTar(target: string, values: Flags, io: CliIo): Promise<number> {
  let input: Readable;
  if (target === '-') {
    if (io.stdin.isTTY) throw new UsageError('give the archive: cairn import --from cairn memory.tar (or - with the archive on stdin)');
    input = io.stdin as Readable;
  }
  else {
    // The file the person names (a link to it followed), opened without blocking and checked on its
    // descriptor: a FIFO or device swapped in after a look would otherwise block or never end. The
    // archive's reader bounds what it reads.
    let real: string;
    try {
      real = fs.realpathSync(target);
    } catch {
      io.stderr.write(`cairn import: ${target} is not a file\n`);
      return 1;
    }
    const opened = await openRegular(real, { maxBytes: Number.MAX_SAFE_INTEGER });
    if ('refused' in opened) {
      io.stderr.write(`cairn import: ${target} is not read: ${opened.refused}\n`);
      return 1;
    }
    input = opened.handle.createReadStream();
  }
  const shown = target === '-' ? 'the archive on stdin' : path.basename(target);
  const { files, problems } = await readMemoryTar(input);
  if (problems.length > 0) {
    io.stderr.write(`cairn import: ${shown} is refused; nothing was imported:\n${problems.map((p) => `  ${p.entry}: ${p.reason}`).join('\n')}\n`);
    return 1;
  }
  const chosen = values.scope === undefined ? files : files.filter((f) => f.scope === values.scope);
  return withMemoryHome(values, (services) =>
    refusing(io, async () => {
      const session = await sessionFromFlags(services, values);
      checkScopes(session, chosen.map((f) => f.scope), `Files of ${shown}`);
      const outcomes = await proposeTarFiles(chosen, session, services.inbox, { dryRun: values['dry-run'] === true });
      reportTar(io, values, shown, outcomes);
      return 0;
    }),
  );
}

/** The archive's files left out by a bound, by which: how many, from which on, and what the person can do. */
function tarLeftOut(outcomes: readonly TarFileOutcome[]): Array<{ reason: LeftOutReason; files: number; from: string; message: string }> {
  return (['import-cap', 'inbox-full'] as const).flatMap((reason) => {
    const of = outcomes.filter((o) => o.status === 'left-out' && o.reason === reason);
    return of.length === 0 ? [] : [{ reason, files: of.length, from: of[0]!.path, message: leftOutText(reason, of.length, { noun: 'file', from: of[0]!.path }) }];
  });
}

function reportTar(io: CliIo, values: Flags, shown: string, outcomes: TarFileOutcome[]): void {
  const of = (status: TarFileOutcome['status']) => outcomes.filter((o) => o.status === status);
  if (values.json) {
    const list = (status: TarFileOutcome['status']) => of(status).map((o) => ({ path: o.path, id: o.item?.id ?? null, ...(o.reason ? { reason: o.reason } : {}) }));
    io.stdout.write(
      `${JSON.stringify({ dryRun: values['dry-run'] === true, create: list('create'), update: list('update'), present: list('present'), inInbox: list('in-inbox'), refused: list('refused'), leftOut: tarLeftOut(outcomes) }, null, 2)}\n`,
    );
    return;
  }
  const held = [...of('create'), ...of('update')];
  const out = [`${shown}: ${plural(outcomes.length, 'memory file')}.`];
  if (held.length === 0 && of('refused').length === 0 && of('in-inbox').length === 0 && of('left-out').length === 0) {
    out.push(outcomes.length === 0 ? 'Nothing to import.' : 'Every file is already present, with the same bytes; nothing was added to the inbox.');
    io.stdout.write(`${out.join('\n')}\n`);
    return;
  }
  const verb = values['dry-run'] ? 'Would hold' : 'Held';
  out.push(`${verb} for your review: ${of('create').length} to create, ${of('update').length} to replace${values['dry-run'] ? ' (a dry run: nothing was added)' : ''}.`);
  for (const o of held) out.push(`  ${o.item ? `${o.item.id}  ` : ''}${o.status === 'create' ? 'create ' : 'replace'}  ${o.path}`);
  if (of('present').length > 0) out.push(`Already present, with the same bytes: ${of('present').length}.`);
  if (of('in-inbox').length > 0) out.push(`Already waiting in the inbox: ${of('in-inbox').length}.`);
  if (of('refused').length > 0) {
    out.push(`Refused: ${of('refused').length}.`);
    for (const o of of('refused')) out.push(`  ${o.path}: ${o.reason}`);
  }
  for (const l of tarLeftOut(outcomes)) out.push(l.message);
  if (held.length > 0 && !values['dry-run']) out.push('Memory is unchanged until you approve: cairn inbox show ID shows a change as a diff, cairn inbox approve ID applies it.');
  io.stdout.write(`${out.join('\n')}\n`);
}
