/**
 * `cairn harvest`: memory proposed to the inbox from the agents' own sessions.
 *   cairn harvest --transcript FILE [--extractor rules] [--dry-run] [--json]
 * The harvest runs in harvest/harvest-run.ts (segments, checks, the inbox); the review is
 * `cairn inbox` (inbox-command.ts). The transcript is read by the rule of files from outside
 * (harvest/session-files.ts openTranscript): a FIFO, a device, a socket or a link that leads
 * elsewhere than a transcript in the home is refused at once with why, exit 1.
 */
import { inboxFullText } from '../../common/api/inbox-text';
import { MAX_INBOX_PENDING } from '../../common/memory/constants';
import * as path from 'node:path';
import type { Candidate } from '../inbox/candidate';
import { REJECTION_REASONS } from '../harvest/checks';
import { HarvestJobs, harvestStatus } from '../harvest/harvest-jobs';
import { harvestFile, harvestJobRunner, runOutcome } from '../harvest/harvest-file';
import { TranscriptRefused } from '../harvest/read-transcript';
import { extractorFor } from '../harvest/extractors';
import { HARVEST_EXTRACTORS } from '../../common/api/settings';
import { budgetStopText, costText, harvestFailureText, harvestStatusText, heldBackText } from '../../common/api/harvest-status-text';
import { sessionFilesIn } from '../harvest/session-files';
import { findGitRoot } from '../workspaces/identity';
import { startWorker } from './harvest-hook';
import { SESSION_OPTIONS, sessionFromFlags, withMemoryHome, type SessionFlags } from './session-flags';
import type { CliIo } from './tool-command';
import { commandArgs } from './command-args';
import { writeJson } from './table';
import { HARVEST_HELP, UsageError } from './usage';


export async function harvestCommand(args: string[], io: CliIo): Promise<number> {
  const parsed = commandArgs(args, io, HARVEST_HELP, {
    ...SESSION_OPTIONS,
    transcript: { type: 'string' },
    extractor: { type: 'string' },
    'dry-run': { type: 'boolean' },
    json: { type: 'boolean' },
    enable: { type: 'boolean' },
    disable: { type: 'boolean' },
    status: { type: 'boolean' },
    work: { type: 'boolean' },
    retry: { type: 'boolean' },
  });
  if (!parsed) return 0;
  const { values, positionals } = parsed;
  if (positionals.length > 0) throw new UsageError('cairn harvest takes no positional argument');
  const switches = [values.enable, values.disable, values.status, values.work, values.retry].filter(Boolean).length;
  if (switches > 1) throw new UsageError('give one of --enable, --disable, --status, --retry, --work');
  if (values.work) {
    // The queue's worker (what the hooks start): runs every due job, then exits.
    return withMemoryHome(values, async (services) => {
      const outcome = await new HarvestJobs(services.home).work(harvestJobRunner(services, () => extractorFor(services.registry.settings())));
      if (outcome.status === 'busy') io.stdout.write('Another worker is running the harvest queue; it will run what is queued.\n');
      else io.stdout.write(`Ran ${outcome.ran} queued harvest${outcome.ran === 1 ? '' : 's'}.\n`);
      return 0;
    });
  }
  if (switches === 1) {
    // The per-workspace switch the agents' hooks read (off until a person turns it on), and its status.
    return withMemoryHome(values, async (services) => {
      const { workspaceId } = await sessionFromFlags(services, values);
      if (workspaceId === null) throw new UsageError('no workspace here; give --cwd DIR or --workspace ID');
      const jobs = new HarvestJobs(services.home);
      if (values.retry) {
        const n = jobs.retry(workspaceId);
        if (n > 0) startWorker(services.home);
        io.stdout.write(n === 0 ? 'No failed harvest to retry.\n' : `Retrying ${n} session${n === 1 ? '' : 's'} now.\n`);
        return 0;
      }
      const on = new Set(services.registry.settings().harvestWorkspaces);
      if (values.enable) on.add(workspaceId);
      if (values.disable) on.delete(workspaceId);
      if (values.enable || values.disable) await services.registry.setSettings({ harvestWorkspaces: [...on].sort() });
      const status = harvestStatus(jobs, workspaceId, on.has(workspaceId));
      if (values.json) return writeJson(io, status);
      io.stdout.write(
        on.has(workspaceId)
          ? `Harvest is on for workspace ${workspaceId}: the agents' hooks (cairn setup claude) propose memories from its sessions to the inbox.\n`
          : `Harvest is off for workspace ${workspaceId}; cairn harvest --enable turns it on.\n`,
      );
      if (values.status) io.stdout.write(`${harvestStatusText(status, Date.now())}\n`);
      return 0;
    });
  }
  if (values.transcript === undefined) return harvestWorkspaceCommand(values, io);
  return harvestTranscriptCommand({ ...values, transcript: values.transcript }, io);
}

/**
 * `cairn harvest` with no transcript: every session of Claude Code, Codex, Gemini CLI and Copilot CLI that ran in this
 * checkout (as "Harvest now" in the app), through the queue and its one worker, in the foreground.
 */
async function harvestWorkspaceCommand(values: { 'dry-run'?: boolean | undefined; json?: boolean | undefined; extractor?: string | undefined } & SessionFlags, io: CliIo): Promise<number> {
  if (values['dry-run'] || values.extractor !== undefined) throw new UsageError('--dry-run and --extractor go with --transcript FILE');
  return withMemoryHome(values, async (services) => {
    const { workspaceId } = await sessionFromFlags(services, values);
    if (workspaceId === null) throw new UsageError('no workspace here; give --cwd DIR or --workspace ID');
    const cwd = path.resolve(values.cwd ?? process.cwd());
    const entry = services.registry.get(workspaceId);
    const dir = entry?.kind === 'local' ? entry.path : ((await findGitRoot(cwd)) ?? cwd);
    const files = await sessionFilesIn(dir);
    const jobs = new HarvestJobs(services.home);
    for (const file of files) jobs.enqueue({ transcript: file.file, cwd: file.cwd, workspaceId });
    const before = services.inbox.list('pending').length;
    const outcome = files.length === 0 ? null : await jobs.work(harvestJobRunner(services, () => extractorFor(services.registry.settings())));
    const status = harvestStatus(jobs, workspaceId, services.registry.settings().harvestWorkspaces.includes(workspaceId));
    const added = services.inbox.list('pending').length - before;
    const failure = harvestFailureText(status);
    // A session that could not be harvested fails the command, as a script or a person expects.
    const exit = failure ? 1 : 0;
    if (values.json) return writeJson(io, { sessions: files.length, proposed: added, busy: outcome?.status === 'busy', status }, exit);
    if (files.length === 0) {
      io.stdout.write('No session of Claude Code, Codex, Gemini CLI or Copilot CLI was found for this checkout on this machine.\n');
      return 0;
    }
    if (outcome?.status === 'busy') io.stdout.write(`Queued ${files.length} session${files.length === 1 ? '' : 's'}; another worker is running the queue and will harvest them.\n`);
    else io.stdout.write(`Harvested ${files.length} session${files.length === 1 ? '' : 's'}: ${added} new proposal${added === 1 ? '' : 's'} in the inbox.\n`);
    if (failure) io.stdout.write(`${failure}\n`);
    if (status.lastRun?.stopped) io.stdout.write(`${budgetStopText(status.lastRun.stopped)}\n`);
    if (added > 0) io.stdout.write('Review them with: cairn inbox list\n');
    return exit;
  });
}

async function harvestTranscriptCommand(values: { transcript: string; extractor?: string | undefined; 'dry-run'?: boolean | undefined; json?: boolean | undefined } & SessionFlags, io: CliIo): Promise<number> {
  const chosen = HARVEST_EXTRACTORS.find((name) => name === values.extractor);
  if (values.extractor !== undefined && chosen === undefined) throw new UsageError(`--extractor takes one of: ${HARVEST_EXTRACTORS.join(', ')}`);
  return withMemoryHome(values, async (services) => {
    const settings = services.registry.settings();
    const extractor = extractorFor({ ...settings, harvestExtractor: chosen ?? settings.harvestExtractor });
    let run;
    try {
      // The workspace is the transcript's own cwd, as `cairn mcp --cwd` resolves it.
      run = await harvestFile(services, path.resolve(values.transcript), {
        extractor,
        budget: settings.harvestBudget,
        dryRun: values['dry-run'] === true,
        session: (transcript) => sessionFromFlags(services, { ...values, cwd: values.cwd ?? transcript.cwd ?? undefined }),
      });
    } catch (err) {
      // Not a regular file, or a link the rule does not follow: refused at once, never waited on.
      if (err instanceof TranscriptRefused) {
        io.stderr.write(`cairn harvest: ${values.transcript}${err.linkTo === null ? '' : ` (a link to ${err.linkTo})`} cannot be read: ${err.reason} Nothing was harvested.\n`);
        return 1;
      }
      if (!(err as NodeJS.ErrnoException).code) throw err;
      io.stderr.write(`cairn harvest: cannot read ${values.transcript}: ${(err as NodeJS.ErrnoException).code}\n`);
      return 1;
    }
    const { transcript, summary } = run;
    // A run from a terminal is the workspace's last run too (its status line shows it).
    if (!values['dry-run'] && run.workspaceId !== null && (summary.status === 'harvested' || summary.status === 'nothing-new')) {
      new HarvestJobs(services.home).recordRun(run.workspaceId, { at: new Date().toISOString(), ...runOutcome(transcript, summary) });
    }
    if (values.json) return writeJson(io, { agent: transcript.agent, sessionId: transcript.sessionId, skippedLines: transcript.skipped, ...summary });
    const who = `${{ claude: 'Claude Code', codex: 'Codex', copilot: 'Copilot CLI', gemini: 'Gemini CLI' }[transcript.agent] ?? transcript.agent} session ${transcript.sessionId}`;
    if (summary.status === 'busy') {
      io.stdout.write(`${who} is being harvested by another run (or by one that stopped less than a minute ago); nothing was done. Try again in a minute.\n`);
      return 0;
    }
    if (summary.status === 'own-run') {
      io.stdout.write(`${who} is one Cairn's own harvest started (its prompt opens it); it is never harvested.\n`);
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
    if (summary.heldBack > 0) io.stdout.write(`${heldBackText(summary.heldBack)}${values['dry-run'] ? '' : ' See them with cairn inbox list --held.'}\n`);
    if (summary.stopped) io.stdout.write(`${budgetStopText(summary.stopped)}\n`);
    if (summary.cost.calls > 0) io.stdout.write(`${costText(summary.cost)}\n`);
    if (summary.rejected['inbox-full'] > 0) io.stdout.write(`${inboxFullText(MAX_INBOX_PENDING, 'person')}\n`);
    if (!values['dry-run'] && summary.proposed.length > 0) io.stdout.write('Review them with: cairn inbox list\n');
    return 0;
  });
}
