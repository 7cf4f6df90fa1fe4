/**
 * `cairn harvest` and `cairn inbox` (issue 19): memory proposed from the agents' own sessions, and
 * a person's review of it.
 *   cairn harvest --transcript FILE [--extractor rules] [--dry-run] [--json]
 *   cairn inbox list [--all] [--json] | show ID | approve ID [--to PATH] [--text T] | reject ID
 * The harvest runs in harvest/harvest-run.ts (segments, checks, the inbox), the review in
 * harvest/harvest-review.ts (approval writes as the person, cause harvest:<id>, undoable).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { SCOPES } from '../../common/memory/constants';
import { MemoryToolError } from '../../common/memory/errors';
import type { Candidate } from '../harvest/candidate';
import { REJECTION_REASONS } from '../harvest/checks';
import { approveItem, rejectItem } from '../harvest/harvest-review';
import { harvestTranscript, type Extractor } from '../harvest/harvest-run';
import { TARGET_FILES, type InboxItem } from '../harvest/inbox-store';
import { readTranscriptFile } from '../harvest/read-transcript';
import { extractByRules } from '../harvest/rules-extractor';
import type { HomeServices } from '../host/home-services';
import type { MemorySession } from '../memory/session';
import { SESSION_OPTIONS, sessionFromFlags, withHome, type SessionFlags } from './session-flags';
import { minuteOf, writeTable } from './table';
import { refusing, type CliIo } from './tool-command';
import { HARVEST_HELP, INBOX_HELP, UsageError } from './usage';

const EXTRACTORS: Record<string, Extractor> = {
  rules: { name: 'rules', extract: async (segment) => extractByRules(segment) },
};

/** Lines of the files candidates would go to, in the session's scopes: a repeat of one is not proposed. */
async function memoryLines(services: HomeServices, session: MemorySession): Promise<string[]> {
  const lines: string[] = [];
  for (const scope of SCOPES) {
    for (const file of Object.values(TARGET_FILES)) {
      try {
        lines.push(...(await services.service.read(`/memories/${scope}/${file}`, session)).content.split('\n'));
      } catch {
        // No such file, or the scope is unavailable: nothing to compare with.
      }
    }
  }
  return lines;
}

export async function harvestCommand(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    strict: true,
    allowPositionals: true,
    options: {
      ...SESSION_OPTIONS,
      transcript: { type: 'string' },
      extractor: { type: 'string' },
      'dry-run': { type: 'boolean' },
      json: { type: 'boolean' },
      enable: { type: 'boolean' },
      disable: { type: 'boolean' },
      status: { type: 'boolean' },
      // Internal: the mark `cairn harvest --hook` left, removed once this harvest is done.
      queued: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    io.stdout.write(HARVEST_HELP);
    return 0;
  }
  if (positionals.length > 0) throw new UsageError('cairn harvest takes no positional argument');
  const switches = [values.enable, values.disable, values.status].filter(Boolean).length;
  if (switches > 1) throw new UsageError('give one of --enable, --disable, --status');
  if (switches === 1) {
    // The per-workspace switch the agents' hooks read (off until a person turns it on).
    return withHome(values, async (services) => {
      const { workspaceId } = await sessionFromFlags(services, values);
      if (workspaceId === null) throw new UsageError('no workspace here; give --cwd DIR or --workspace ID');
      const on = new Set(services.registry.settings().harvestWorkspaces);
      if (values.enable) on.add(workspaceId);
      if (values.disable) on.delete(workspaceId);
      if (!values.status) await services.registry.setSettings({ harvestWorkspaces: [...on].sort() });
      io.stdout.write(
        on.has(workspaceId)
          ? `Harvest is on for workspace ${workspaceId}: the agents' hooks (cairn setup claude) propose memories from its sessions to the inbox.\n`
          : `Harvest is off for workspace ${workspaceId}; cairn harvest --enable turns it on.\n`,
      );
      return 0;
    });
  }
  const queued = values.queued;
  try {
    return await harvestTranscriptCommand(values, io);
  } finally {
    if (queued !== undefined && path.basename(path.dirname(queued)) === 'queued') fs.rmSync(queued, { force: true });
  }
}

async function harvestTranscriptCommand(values: { transcript?: string | undefined; extractor?: string | undefined; 'dry-run'?: boolean | undefined; json?: boolean | undefined } & SessionFlags, io: CliIo): Promise<number> {
  if (values.transcript === undefined) throw new UsageError('cairn harvest needs --transcript FILE (a Claude Code transcript or a Codex rollout)');
  const extractor = EXTRACTORS[values.extractor ?? 'rules'];
  if (!extractor) throw new UsageError(`--extractor takes one of: ${Object.keys(EXTRACTORS).join(', ')}`);
  let transcript;
  try {
    transcript = await readTranscriptFile(path.resolve(values.transcript));
  } catch (err) {
    io.stderr.write(`cairn harvest: cannot read ${values.transcript}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}\n`);
    return 1;
  }
  return withHome(values, async (services) => {
    // The workspace is the transcript's own cwd, as `cairn mcp --cwd` resolves it.
    const session = await sessionFromFlags(services, { ...values, cwd: values.cwd ?? transcript.cwd ?? undefined });
    const summary = await harvestTranscript({
      home: services.home,
      transcript,
      extractor,
      inbox: services.inbox,
      workspaceId: session.workspaceId,
      projectId: session.projectId,
      memoryLines: await memoryLines(services, session),
      dryRun: values['dry-run'] === true,
    });
    if (values.json) {
      io.stdout.write(`${JSON.stringify({ agent: transcript.agent, sessionId: transcript.sessionId, skippedLines: transcript.skipped, ...summary }, null, 2)}\n`);
      return 0;
    }
    const who = `${transcript.agent === 'claude' ? 'Claude Code' : 'Codex'} session ${transcript.sessionId}`;
    if (summary.status === 'busy') {
      io.stdout.write(`${who} is being harvested by another run; nothing was done.\n`);
      return 0;
    }
    if (summary.status === 'nothing-new') {
      io.stdout.write(`${who}: nothing new since the last harvest.\n`);
      return 0;
    }
    const skipped = REJECTION_REASONS.filter((r) => summary.rejected[r] > 0).map((r) => `${summary.rejected[r]} ${r}`);
    const verb = values['dry-run'] ? 'would propose' : 'proposed';
    io.stdout.write(`${who}: ${summary.segmentMessages} new messages${summary.restarted ? ' (the transcript was rewritten, so from its start)' : ''}; ${verb} ${summary.proposed.length}${skipped.length ? `, skipped ${skipped.join(', ')}` : ''}.\n`);
    for (const p of summary.proposed) {
      const c: Candidate = 'candidate' in p ? p.candidate : p;
      io.stdout.write(`  ${'id' in p ? `${p.id}  ` : ''}${c.category}  ${c.text}\n`);
    }
    if (!values['dry-run'] && summary.proposed.length > 0) io.stdout.write('Review them with: cairn inbox list\n');
    return 0;
  });
}

function describeItem(item: InboxItem): string {
  const c = item.candidate;
  const lines = [
    `${item.id}  ${item.status}  ${c.category}  confidence ${c.confidence}`,
    c.text,
    `to: ${item.approvedTo ?? item.target}`,
    `from: ${item.source.agent} session ${item.source.sessionId} (${item.source.extractor}), ${item.createdAt}`,
    `why: ${c.rationale}`,
    ...c.evidence.map((e) => `evidence (${e.messageId}): "${e.quote}"`),
  ];
  return `${lines.join('\n')}\n`;
}

export async function inboxCommand(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    strict: true,
    allowPositionals: true,
    options: { ...SESSION_OPTIONS, all: { type: 'boolean' }, json: { type: 'boolean' }, to: { type: 'string' }, text: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
  });
  if (values.help) {
    io.stdout.write(INBOX_HELP);
    return 0;
  }
  const [verb = 'list', id, ...extra] = positionals;
  if (extra.length > 0) throw new UsageError('too many arguments; see cairn inbox --help');
  if (verb !== 'list' && id === undefined) throw new UsageError(`cairn inbox ${verb} takes one item id`);
  return withHome(values, (services) =>
    refusing(io, async () => {
      const inbox = services.inbox;
      switch (verb) {
        case 'list': {
          const items = values.all ? inbox.list() : inbox.list('pending');
          if (values.json) {
            io.stdout.write(`${JSON.stringify({ items }, null, 2)}\n`);
            return 0;
          }
          writeTable(io, [['ID', 'PROPOSED (UTC)', 'KIND', 'TO', 'TEXT'], ...items.map((i) => [i.id, minuteOf(i.createdAt), i.candidate.category, i.approvedTo ?? i.target, i.candidate.text])]);
          if (items.length === 0) io.stdout.write('(the inbox is empty)\n');
          return 0;
        }
        case 'show': {
          const item = inbox.get(id!);
          if (!item) throw new MemoryToolError(`There is no inbox item ${JSON.stringify(id)}; list them with cairn inbox list.`);
          io.stdout.write(values.json ? `${JSON.stringify(item, null, 2)}\n` : describeItem(item));
          return 0;
        }
        case 'approve': {
          const session = await sessionFromFlags(services, { ...values, cwd: values.cwd ?? inbox.get(id!)?.source.cwd ?? undefined });
          const outcome = await approveItem(inbox, services.service, session, id!, { to: values.to, text: values.text });
          if (outcome.status === 'conflict') throw new MemoryToolError(outcome.message);
          if (outcome.status !== 'approved') return 1;
          io.stdout.write(`Approved ${id}: added to ${outcome.path}${outcome.created ? ' (a new file)' : ''}. cairn undo --last takes it back.\n`);
          return 0;
        }
        case 'reject':
          rejectItem(inbox, id!);
          io.stdout.write(`Rejected ${id}; the same text will not be proposed again for 90 days.\n`);
          return 0;
        default:
          throw new UsageError(`unknown inbox command ${JSON.stringify(verb)}; see cairn inbox --help`);
      }
    }),
  );
}
