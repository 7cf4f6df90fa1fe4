/**
 * `cairn inbox`: a person's review of what waits in the inbox: memories proposed from
 * the agents' sessions, and agents' changes to scopes under review (review mode).
 *   cairn inbox list [--held | --all] [--json] | show ID | approve ID [--to PATH] [--text T] | reject ID
 *   cairn inbox review [--scope S] [--on | --off]
 * The review itself is inbox/inbox-review.ts (approval writes as the person, cause
 * harvest:<id> or review:<id>, undoable); the setting is inbox/review-mode.ts's.
 */
import { createTwoFilesPatch } from 'diff';
import { heldBackText } from '../../common/api/harvest-status-text';
import { fileOrigin, originText, toolOnlyText } from '../../common/api/inbox-text';
import { MAX_INBOX_PENDING, SCOPES, type Scope } from '../../common/memory/constants';
import { MemoryToolError } from '../../common/memory/errors';
import { approveItem, rejectItem, rejectRestoring } from '../inbox/inbox-review';
import { changeSummary, DamagedItemError, type ChangeItem, type InboxItem, type MemoryItem } from '../inbox/inbox-store';
import { reviewKey } from '../inbox/review-mode';
import type { MemoryHome } from '../host/memory-home';
import { SESSION_OPTIONS, sessionFromFlags, withMemoryHome, type SessionFlags } from './session-flags';
import { minuteOf, writeTable, writeJson } from './table';
import { refusing, type CliIo } from './tool-command';
import { commandArgs } from './command-args';
import { catchUpPulls } from './pull-catch-up';
import { headMoveSince } from '../workspaces/head-moves';
import { INBOX_HELP, UsageError } from './usage';

/** Who said an evidence quote, in the CLI's words. */
const SPEAKER_WORDS = { person: 'you said', agent: 'the agent said', tool: "a tool's output" } as const;

function describeCandidate(item: MemoryItem): string {
  const c = item.candidate;
  const lines = [
    `${item.id}  ${item.status}  ${c.category}  confidence ${c.confidence}`,
    c.text,
    `to: ${item.approvedTo ?? item.target}`,
    fileOrigin(item.source.sessionId)
      ? `from: ${originText(item.source)} (${item.source.extractor}), ${item.createdAt}`
      : `from: ${item.source.agent} session ${item.source.sessionId} (${item.source.extractor}), ${item.createdAt}`,
    `why: ${c.rationale}`,
    ...c.evidence.map((e) => `evidence (${e.speaker ? `${SPEAKER_WORDS[e.speaker]}, ` : ''}${e.messageId}): "${e.quote}"`),
  ];
  const toolOnly = toolOnlyText(c.evidence);
  if (toolOnly) lines.push(`note: ${toolOnly}`);
  return `${lines.join('\n')}\n`;
}

/** An agent's change under review: what it does, then a unified diff of the file (a rename: its two names). */
function describeChange(item: ChangeItem): string {
  const c = item.change;
  const from = item.source.from;
  const by = from?.kind === 'pull' ? `brought by a pull: commit ${from.commit} by ${from.author}` : from ? `synced from ${from.remote}, commit ${from.commit}` : 'proposed by an agent';
  const head = [`${item.id}  ${item.status}  change  ${c.command}`, `${changeSummary(c)}, ${by}, ${item.createdAt}`];
  if (from?.flag) head.push(`held: ${from.flag}`);
  if (item.status === 'pending') {
    head.push(
      from?.kind === 'pull'
        ? `the file is in your checkout as the pull left it, and agents do not get it until you approve it: cairn inbox approve ${item.id} (cairn inbox reject ${item.id} writes back the text from before the pull)`
        : `memory is unchanged until you approve it: cairn inbox approve ${item.id}`,
    );
  }
  const diff = createTwoFilesPatch(c.before === null ? '/dev/null' : c.path, c.after === null ? '/dev/null' : (c.newPath ?? c.path), c.before ?? '', c.after ?? '', 'now', 'proposed');
  return `${head.join('\n')}\n${diff}`;
}

function kindOf(item: InboxItem): string {
  return item.kind === 'change' ? 'change' : item.candidate.category;
}

function textOf(item: InboxItem): string {
  if (item.kind === 'memory') return item.candidate.text;
  const from = item.source.from;
  return from?.kind === 'pull' ? `${changeSummary(item.change)} (pulled: commit ${from.commit.slice(0, 7)} by ${from.author}${from.flag ? '; flagged' : ''})` : changeSummary(item.change);
}

function targetOf(item: InboxItem): string {
  return item.approvedTo ?? (item.kind === 'change' ? (item.change.newPath ?? item.change.path) : item.target);
}

/** The session an item is approved in: the flags', else the one it came from. */
function approvalFlags(item: InboxItem | null, values: SessionFlags): SessionFlags {
  if (item?.kind === 'change') return { ...values, workspace: values.workspace ?? item.source.workspaceId ?? undefined, cwd: values.cwd ?? item.source.cwd ?? undefined };
  return { ...values, cwd: values.cwd ?? item?.source.cwd ?? undefined };
}

export async function inboxCommand(args: string[], io: CliIo): Promise<number> {
  const parsed = commandArgs(args, io, INBOX_HELP, {
    ...SESSION_OPTIONS,
    all: { type: 'boolean' },
    held: { type: 'boolean' },
    json: { type: 'boolean' },
    to: { type: 'string' },
    text: { type: 'string' },
    scope: { type: 'string' },
    on: { type: 'boolean' },
    off: { type: 'boolean' },
  });
  if (!parsed) return 0;
  const { values, positionals } = parsed;
  const [verb = 'list', id, ...extra] = positionals;
  if (extra.length > 0 || (verb === 'review' && id !== undefined)) throw new UsageError('too many arguments; see cairn inbox --help');
  if (verb !== 'list' && verb !== 'review' && id === undefined) throw new UsageError(`cairn inbox ${verb} takes one item id`);
  if (verb === 'review') return reviewCommand(values, io);
  return withMemoryHome(values, (services) =>
    refusing(io, async () => {
      const inbox = services.inbox;
      switch (verb) {
        case 'list': {
          // Project memory a pull brought while no Cairn process watched the checkout is held now.
          const here = await sessionFromFlags(services, values).catch(() => null);
          if (here) {
            // From the commit the hooks or a listing last saw, so that two pulls are both caught up.
            const move = await headMoveSince(services.home, values.cwd ?? process.cwd());
            await catchUpPulls(services, here, move?.since);
            await move?.seen();
          }
          const { items, damaged, unread } = inbox.listing(values.all ? undefined : values.held ? 'held' : 'pending');
          if (values.json) return writeJson(io, { items, damaged, unread });
          // A damaged file comes first, so that it is seen: Cairn cannot read it, and leaves it to the person.
          writeTable(io, [
            ['ID', 'PROPOSED (UTC)', 'KIND', 'TO', 'TEXT'],
            ...damaged.map((d) => [d.id, d.createdAt === null ? '?' : minuteOf(d.createdAt), 'damaged', '-', `${d.problem}: ${d.file}`]),
            ...items.map((i) => [i.id, minuteOf(i.createdAt), kindOf(i), targetOf(i), textOf(i)]),
          ]);
          if (items.length === 0 && damaged.length === 0) io.stdout.write(values.held ? '(nothing is held back)\n' : '(the inbox is empty)\n');
          if (!values.all && !values.held) {
            const held = inbox.list('held').length;
            if (held > 0) io.stdout.write(`${heldBackText(held)} See ${held === 1 ? 'it' : 'them'} with cairn inbox list --held; approve or reject any as usual.\n`);
          }
          if (damaged.length > 0) {
            io.stdout.write(
              `${damaged.length === 1 ? '1 inbox file is damaged' : `${damaged.length} inbox files are damaged`}: Cairn cannot read ${damaged.length === 1 ? 'it' : 'them'} and leaves ${damaged.length === 1 ? 'it' : 'them'} as ${damaged.length === 1 ? 'it is' : 'they are'}. Look at each file; remove it once it holds nothing you need (cairn inbox show ID says more).\n`,
            );
          }
          if (unread > 0) {
            io.stdout.write(`${unread} older inbox ${unread === 1 ? 'file was' : 'files were'} not read: a listing shows the newest ${MAX_INBOX_PENDING}. Approve or reject these first (or reject a whole import at once in the app's Inbox).\n`);
          }
          return 0;
        }
        case 'show': {
          const found = inbox.lookup(id!);
          if (found && 'problem' in found) throw new DamagedItemError(found);
          const item = found;
          if (!item) throw new MemoryToolError(`There is no inbox item ${JSON.stringify(id)}; list them with cairn inbox list.`);
          io.stdout.write(values.json ? `${JSON.stringify(item, null, 2)}\n` : item.kind === 'change' ? describeChange(item) : describeCandidate(item));
          return 0;
        }
        case 'approve': {
          const found = inbox.lookup(id!);
          if (found && 'problem' in found) throw new DamagedItemError(found);
          const session = await sessionFromFlags(services, approvalFlags(inbox.get(id!), values));
          const outcome = await approveItem(inbox, services.service, session, id!, { to: values.to, text: values.text });
          if (outcome.status === 'conflict') throw new MemoryToolError(outcome.message);
          if (outcome.status !== 'approved') return 1;
          if (outcome.item.kind === 'change' && outcome.item.source.from?.kind === 'pull') io.stdout.write(`Approved ${id}: agents get ${outcome.path} as the pull left it.\n`);
          else if (outcome.item.kind === 'change') io.stdout.write(`Approved ${id}: ${changeSummary(outcome.item.change)}, applied as you. cairn undo --last takes it back.\n`);
          else io.stdout.write(`Approved ${id}: added to ${outcome.path}${outcome.created ? ' (a new file)' : ''}. cairn undo --last takes it back.\n`);
          return 0;
        }
        case 'reject': {
          const found = inbox.lookup(id!);
          if (found && 'problem' in found) throw new DamagedItemError(found);
          // Only a pull's rejection writes (the text from before it, in its checkout's project).
          const item = inbox.get(id!);
          const outcome =
            item?.kind === 'change' && item.source.from?.kind === 'pull'
              ? await rejectRestoring(inbox, services.service, await sessionFromFlags(services, approvalFlags(item, values)), id!)
              : rejectItem(inbox, id!);
          if (outcome.status === 'conflict') throw new MemoryToolError(outcome.message);
          if (outcome.status === 'rejected' && outcome.item.kind === 'change' && outcome.item.source.from?.kind === 'pull')
            io.stdout.write(`Rejected ${id}: ${outcome.item.change.path} has its text from before the pull again, written as you. cairn undo --last takes it back.\n`);
          else if (outcome.status === 'rejected' && outcome.item.kind === 'change') io.stdout.write(`Rejected ${id}: the agent's change is dropped (${changeSummary(outcome.item.change)}); memory is unchanged.\n`);
          else io.stdout.write(`Rejected ${id}; the same text will not be proposed again for 90 days.\n`);
          return 0;
        }
        default:
          throw new UsageError(`unknown inbox command ${JSON.stringify(verb)}; see cairn inbox --help`);
      }
    }),
  );
}

/**
 * `cairn inbox review [--scope S] [--on | --off]`: review mode of a scope of this checkout's
 * session (the setting `reviewScopes`); without --on or --off, whether each scope is under review.
 */
async function reviewCommand(values: SessionFlags & { scope?: string | undefined; on?: boolean | undefined; off?: boolean | undefined }, io: CliIo): Promise<number> {
  if (values.on && values.off) throw new UsageError('give --on or --off, not both');
  const change = values.on ? true : values.off ? false : null;
  if (values.scope !== undefined && !(SCOPES as readonly string[]).includes(values.scope)) throw new UsageError(`--scope is one of ${SCOPES.join(', ')}`);
  if (change !== null && values.scope === undefined) throw new UsageError(`--on and --off need --scope (${SCOPES.join(', ')})`);
  return withMemoryHome(values, (services) =>
    refusing(io, async () => {
      const session = await sessionFromFlags(services, values);
      const scopes = values.scope === undefined ? SCOPES : [values.scope as Scope];
      const keys = scopes.map((scope) => ({ scope, key: reviewKey(scope, session) }));
      if (change !== null) {
        const key = keys[0]!.key;
        if (key === null) throw new MemoryToolError(`There is no ${scopes[0]} memory here (${scopes[0] === 'project' ? 'not in a git checkout' : 'no workspace'}), so it cannot be put under review.`);
        await setReview(services, key, change);
      }
      const on = new Set(services.registry.settings().reviewScopes);
      for (const { scope, key } of keys) {
        const state = key === null ? 'none here' : on.has(key) ? "on: agents' writes wait in the inbox for your review" : 'off';
        io.stdout.write(`/memories/${scope}  review ${state}\n`);
      }
      return 0;
    }),
  );
}

async function setReview(services: MemoryHome, key: string, on: boolean): Promise<void> {
  const current = new Set(services.registry.settings().reviewScopes);
  if (on) current.add(key);
  else current.delete(key);
  await services.registry.setSettings({ reviewScopes: [...current].sort() });
}
