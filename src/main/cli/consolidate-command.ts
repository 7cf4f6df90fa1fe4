/**
 * `cairn consolidate`: consolidation of one scope root.
 *   cairn consolidate [--scope S] [--days N] [--extractor E] [--json]
 *                                                 propose (nothing is written to memory); the
 *                                                 extractor is the setting consolidationExtractor unless given
 *   cairn consolidate list [--json]                     the proposals of the scopes this checkout sees
 *   cairn consolidate show ID [--diff] [--json]         one proposal: its changes, or each as a diff
 *   cairn consolidate apply ID [--only PATH...]         apply all, or only the changes about PATH
 *   cairn consolidate discard ID                        discard (only the record stays)
 * The work is Consolidations' (consolidation/consolidations.ts), shared with the app's API; this module parses flags and prints.
 */
import { createTwoFilesPatch } from 'diff';
import { costText } from '../../common/api/harvest-status-text';
import { CONSOLIDATION_EXTRACTORS } from '../../common/api/settings';
import { SCOPES, type Scope } from '../../common/memory/constants';
import { MemoryToolError } from '../../common/memory/errors';
import { formatMemoryPath } from '../../common/memory/paths';
import { consolidationSummary, type ConsolidationChange, type ConsolidationCost, type ConsolidationFile, type ConsolidationProposal, type ConsolidationRefusal, type ConsolidationSince } from '../../common/consolidation/proposal';
import type { HomeServices } from '../host/home-services';
import type { MemorySession } from '../memory/session';
import { consolidationExtractorFor } from '../consolidation/consolidation-backends';
import { SESSION_OPTIONS, sessionFromFlags, withHome } from './session-flags';
import { minuteOf, writeTable, writeJson } from './table';
import { refusing, type CliIo } from './tool-command';
import { commandArgs } from './command-args';
import { CONSOLIDATION_HELP, UsageError } from './usage';

export async function consolidateCommand(args: string[], io: CliIo): Promise<number> {
  const parsed = commandArgs(args, io, CONSOLIDATION_HELP, {
    ...SESSION_OPTIONS,
    scope: { type: 'string' },
    days: { type: 'string' },
    extractor: { type: 'string' },
    json: { type: 'boolean' },
    diff: { type: 'boolean' },
    only: { type: 'string', multiple: true },
  });
  if (!parsed) return 0;
  const { values, positionals } = parsed;
  const [verb, id, ...rest] = positionals;
  const json = values.json === true;
  const needsId = (what: string): string => {
    if (id === undefined) throw new UsageError(`cairn consolidate ${what} takes a proposal id (see cairn consolidate list)`);
    return id;
  };
  const noMore = (what: string) => {
    if (rest.length > 0) throw new UsageError(`cairn consolidate ${what} takes one proposal id`);
  };
  const run = (fn: (services: HomeServices, session: MemorySession) => Promise<number>) =>
    withHome(values, (services) => refusing(io, async () => fn(services, await sessionFromFlags(services, values))));
  switch (verb) {
    case undefined: {
      const scope = values.scope ?? 'project';
      if (!(SCOPES as readonly string[]).includes(scope)) throw new UsageError(`--scope takes one of ${SCOPES.join(', ')}`);
      const days = values.days === undefined ? undefined : Number(values.days);
      if (days !== undefined && (!Number.isInteger(days) || days < 1)) throw new UsageError('--days must be a positive whole number');
      if (values.extractor !== undefined && !(CONSOLIDATION_EXTRACTORS as readonly string[]).includes(values.extractor)) throw new UsageError(`--extractor takes one of ${CONSOLIDATION_EXTRACTORS.join(', ')}`);
      return run(async ({ consolidations, registry }, session) => {
        const extractor = consolidationExtractorFor(registry.settings(), { name: values.extractor });
        // Ctrl-C stops a model backend's command or request (its process group is its own, so the
        // terminal's SIGINT would not reach it), then ends as an interrupted command does.
        const cancel = new AbortController();
        const onInterrupt = () => cancel.abort();
        // `on`, not `once`: a listener that removed itself before signal-exit's (proper-lockfile's,
        // loaded with the first lock) looks for others would leave that one to re-raise the signal.
        process.on('SIGINT', onInterrupt);
        let outcome;
        try {
          outcome = await consolidations.propose(session, { scope: scope as Scope, extractor, signal: cancel.signal, ...(days !== undefined ? { days } : {}) });
        } catch (err) {
          if (!cancel.signal.aborted) throw err;
          io.stderr.write('cairn consolidate: cancelled; nothing was proposed and nothing was written.\n');
          return 130;
        } finally {
          process.off('SIGINT', onInterrupt);
        }
        if (json) io.stdout.write(`${JSON.stringify(outcome, null, 2)}\n`);
        else if (outcome.status === 'nothing') {
          const where = formatMemoryPath(scope as Scope);
          io.stdout.write(
            outcome.extractorCalled
              ? outcome.refused.length > 0
                ? `Nothing to consolidate in ${where}: every change the ${extractor.name} extractor answered was refused.\n`
                : extractor.offline
                  ? `Nothing to consolidate in ${where}: no file unused for ${days ?? 60} days, no files saying the same thing.\n`
                  : `Nothing to consolidate in ${where}: the ${extractor.name} extractor proposed no change.\n`
              : `Nothing to consolidate in ${where}: nothing changed since the last consolidation (${minuteOf(outcome.since.last?.at ?? null)} UTC) and no file is unused for ${days ?? 60} days.\n`,
          );
          writeRefused(io, outcome.refused);
          writeCost(io, outcome.cost);
          writeSince(io, outcome.since);
        } else {
          writeProposal(io, outcome.proposal);
          const pid = outcome.proposal.id;
          io.stdout.write(`\nNothing is written until you apply it:\n  cairn consolidate show ${pid} --diff\n  cairn consolidate apply ${pid} [--only PATH...]\n  cairn consolidate discard ${pid}\n`);
        }
        return 0;
      });
    }
    case 'list':
      if (id !== undefined) throw new UsageError('cairn consolidate list takes no argument');
      return run(async ({ consolidations }, session) => {
        const all = consolidations.list(session);
        if (json) return writeJson(io, { proposals: all });
        writeTable(io, [['ID', 'CREATED (UTC)', 'STATE', 'SUMMARY', 'SCOPE'], ...all.map((p) => [p.id, minuteOf(p.createdAt), p.state, consolidationSummary(p.changes), formatMemoryPath(p.scope)])]);
        if (all.length === 0) io.stdout.write('(no proposals: run cairn consolidate)\n');
        return 0;
      });
    case 'show': {
      const pid = needsId('show');
      noMore('show');
      return run(async ({ consolidations, service }, session) => {
        const p = consolidations.get(pid, session);
        if (json) return writeJson(io, p);
        writeProposal(io, p);
        io.stdout.write('\nUsage of each file (when proposed):\n');
        for (const c of p.changes) for (const f of c.files) io.stdout.write(`  ${f.path}  ${usageText(f.usage)}\n`);
        if (values.diff) {
          for (const change of p.changes) {
            const renamedTo = change.kind === 'rename' ? change.files.find((f) => f.created) : undefined;
            for (const f of change.files) {
              if (f.content === undefined || f === renamedTo) continue;
              let now: { content: string; sha256: string } | null = null;
              try {
                now = await service.read(f.path, session);
              } catch (err) {
                if (!(err instanceof MemoryToolError)) throw err;
              }
              io.stdout.write('\n');
              if (f.created) {
                // A new file: the diff is against nothing, and it must still not exist.
                if (now !== null) io.stdout.write(`(${f.path} exists now: applying skips this change)\n`);
                else io.stdout.write(createTwoFilesPatch('/dev/null', f.path, '', f.content ?? '', 'now', 'proposed (new file)'));
                continue;
              }
              if (now === null || now.sha256 !== f.sha256) io.stdout.write(`(${f.path} ${now === null ? 'is gone' : 'was changed'} since the proposal: applying skips this change)\n`);
              if (renamedTo && now !== null) io.stdout.write(`rename from ${f.path}\nrename to ${renamedTo.path}\n(the content moves as it is)\n`);
              else if (now !== null) io.stdout.write(createTwoFilesPatch(f.path, f.path, now.content, f.content ?? '', 'now', f.content === null ? 'deleted' : 'proposed'));
            }
          }
        }
        return 0;
      });
    }
    case 'apply': {
      const pid = needsId('apply');
      // `--only a.md b.md`: paths after the id belong to --only.
      if (rest.length > 0 && values.only === undefined) throw new UsageError('cairn consolidate apply takes one proposal id; choose changes with --only PATH...');
      const only = [...(values.only ?? []), ...rest];
      return run(async ({ consolidations }, session) => {
        const p = await consolidations.apply(pid, session, only.length > 0 ? { only } : {});
        const r = p.result!;
        if (json) return writeJson(io, p);
        const chosen = r.applied.length + r.skipped.length;
        io.stdout.write(
          r.applied.length === 0
            ? `Applied nothing of proposal ${p.id}: every change chosen moved on since.\n`
            : `Applied ${r.applied.length} of ${chosen} ${chosen === 1 ? 'change' : 'changes'} of proposal ${p.id} to ${formatMemoryPath(p.scope)} as one change${r.batch ? `; undo it all with: cairn undo ${r.batch}` : ''}\n`,
        );
        for (const path of r.applied) io.stdout.write(`  applied  ${path}\n`);
        for (const s of r.skipped) io.stdout.write(`  skipped  ${s.message}\n`);
        return 0;
      });
    }
    case 'discard': {
      const pid = needsId('discard');
      noMore('discard');
      return run(async ({ consolidations }, session) => {
        const p = consolidations.discard(pid, session);
        io.stdout.write(`Discarded proposal ${p.id}; nothing was written.\n`);
        return 0;
      });
    }
    default:
      throw new UsageError(`unknown consolidation command ${JSON.stringify(verb)}: use list, show, apply or discard (or none, to propose)`);
  }
}

const KIND_WIDTH = 7;

/** "9 uses, last used 2026-11-20 10:00, last written -, pinned". */
function usageText(u: ConsolidationFile['usage']): string {
  return `${u.accessCount} ${u.accessCount === 1 ? 'use' : 'uses'}, last used ${minuteOf(u.lastAccessedAt)}, last written ${minuteOf(u.lastWriteAt)}${u.pinned ? ', pinned' : ''}`;
}

function writeChange(io: CliIo, n: number, c: ConsolidationChange): void {
  const others = c.files.filter((f) => f.path !== c.path && !f.created).map((f) => f.path);
  const created = c.files.filter((f) => f.created && f.path !== c.path).map((f) => f.path);
  const tail = c.kind === 'rename' ? `  (to ${created.join(', ')})` : others.length > 0 ? `  (deletes ${others.join(', ')})` : '';
  io.stdout.write(`  ${`${n}.`.padEnd(4)}${c.kind.padEnd(KIND_WIDTH)}  ${c.path}${c.files[0]?.created ? ' (new)' : ''}${tail}\n`);
  io.stdout.write(`${' '.repeat(4 + KIND_WIDTH + 4)}${c.reason}\n`);
}

function writeProposal(io: CliIo, p: ConsolidationProposal): void {
  io.stdout.write(`Proposal ${p.id} for ${formatMemoryPath(p.scope)}: ${consolidationSummary(p.changes)} (${p.state}; made ${minuteOf(p.createdAt)} UTC, ${p.state === 'open' ? 'expires' : 'expiry'} ${minuteOf(p.expiresAt)} UTC)\n`);
  p.changes.forEach((c, i) => writeChange(io, i + 1, c));
  if (p.more > 0) io.stdout.write(`(${p.more} more ${p.more === 1 ? 'change qualifies' : 'changes qualify'} past the ${p.changes.length} a proposal holds: the next cairn consolidate proposes them)\n`);
  writeRefused(io, p.refused ?? []);
  writeCost(io, p.cost);
  if (p.state === 'replaced' && p.replacedBy) io.stdout.write(`Replaced by ${p.replacedBy}.\n`);
  if (p.result) {
    io.stdout.write(`Applied ${minuteOf(p.result.at)} UTC: ${p.result.applied.length} applied, ${p.result.skipped.length} skipped${p.result.batch ? `; undo with: cairn undo ${p.result.batch}` : ''}\n`);
    for (const s of p.result.skipped) io.stdout.write(`  skipped  ${s.message}\n`);
  }
  writeSince(io, p.since);
}

/** The extractor's changes the checks refused, each with why. */
function writeRefused(io: CliIo, refused: readonly ConsolidationRefusal[]): void {
  if (refused.length === 0) return;
  io.stdout.write(`Refused ${refused.length} ${refused.length === 1 ? 'change' : 'changes'} of the extractor's answer:\n`);
  for (const r of refused) io.stdout.write(`  ${r.change}: ${r.reason}\n`);
}

/** What asking a model sent, as `cairn harvest` says it; nothing when no model was asked (the rules). */
function writeCost(io: CliIo, cost: ConsolidationCost | undefined): void {
  if (cost && cost.calls > 0) io.stdout.write(`${costText(cost)}\n`);
}

function writeSince(io: CliIo, since: ConsolidationSince): void {
  const head = since.last ? `Changed since the last consolidation (${since.last.id}, ${minuteOf(since.last.at)} UTC)` : 'Changed in the recorded history (no consolidation yet)';
  io.stdout.write(`${head}: ${since.total} ${since.total === 1 ? 'file' : 'files'}\n`);
  for (const c of since.changed.slice(0, 10)) io.stdout.write(`  ${c.op.padEnd(KIND_WIDTH)}  ${c.path}  (${c.actor}, ${minuteOf(c.at)} UTC)\n`);
  if (since.total > 10) io.stdout.write(`  ... and ${since.total - 10} more (--json lists ${since.changed.length})\n`);
}
