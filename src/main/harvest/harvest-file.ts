/**
 * One transcript file harvested for a home: read it, resolve its workspace from its cwd
 * (as `cairn mcp --cwd` does), gather the memory lines a candidate must not repeat, and run
 * harvestTranscript. What `cairn harvest --transcript` and the job worker both run.
 */
import { SCOPES } from '../../common/memory/constants';
import type { MemoryService } from '../memory/memory-service';
import type { Runtime } from '../runtime/runtime';
import type { WorkspaceRegistry } from '../workspaces/registry';
import type { MemorySession } from '../memory/session';
import { resolveLocalSession } from '../workspaces/session';
import type { JobOutcome, JobRunner } from './harvest-jobs';
import type { InboxStore } from '../inbox/inbox-store';
import { harvestTranscript, pruneSessionStates, type Extractor, type HarvestBudget, type HarvestSummary } from './harvest-run';
import { TARGET_FILES } from '../inbox/inbox-store';
import { readTranscriptFile } from './read-transcript';
import type { Transcript } from './transcript';

/** What a harvest uses of a home's services (host/home-services.ts opens them). */
export interface HarvestServices {
  readonly home: string;
  readonly service: MemoryService;
  readonly inbox: InboxStore;
  readonly registry: WorkspaceRegistry;
  readonly runtime: Runtime;
}

/** Lines of the files candidates would go to, in the session's scopes: a repeat of one is not proposed. */
export async function memoryLines(service: MemoryService, session: MemorySession): Promise<string[]> {
  const lines: string[] = [];
  for (const scope of SCOPES) {
    for (const file of Object.values(TARGET_FILES)) {
      try {
        lines.push(...(await service.read(`/memories/${scope}/${file}`, session)).content.split('\n'));
      } catch {
        // No such file, or the scope is unavailable: nothing to compare with.
      }
    }
  }
  return lines;
}

export interface HarvestFileOptions {
  readonly extractor: Extractor;
  /** The session's directory when the trigger knew it; else the transcript's own cwd. */
  readonly cwd?: string | undefined;
  /** The memory session it is checked against (default: the workspace of that directory). */
  readonly session?: (transcript: Transcript) => Promise<MemorySession>;
  readonly dryRun?: boolean;
  readonly minConfidence?: number;
  /** The most the run may send to a model (the `harvestBudget` setting). */
  readonly budget?: HarvestBudget;
  /** Called once the transcript is read: which session this is. */
  readonly onTranscript?: (transcript: Transcript) => void;
  readonly onChunk?: (index: number, count: number) => void;
}

export async function harvestFile(services: HarvestServices, file: string, options: HarvestFileOptions): Promise<{ transcript: Transcript; summary: HarvestSummary; workspaceId: string | null }> {
  // Housekeeping of what is kept only for a while (at most once a day: the inbox's stamp).
  if (!options.dryRun && services.inbox.prune() !== null) pruneSessionStates(services.home, Date.now());
  const transcript = await readTranscriptFile(file);
  options.onTranscript?.(transcript);
  const cwd = options.cwd ?? transcript.cwd;
  // A transcript with no cwd has no workspace: only the global scope is compared with.
  const session = options.session
    ? await options.session(transcript)
    : cwd
      ? await resolveLocalSession({ home: services.home, cwd }, services.runtime)
      : await services.registry.session(null);
  const summary = await harvestTranscript({
    home: services.home,
    transcript,
    extractor: options.extractor,
    inbox: services.inbox,
    workspaceId: session.workspaceId,
    projectId: session.projectId,
    memoryLines: await memoryLines(services.service, session),
    dryRun: options.dryRun === true,
    ...(options.minConfidence !== undefined ? { minConfidence: options.minConfidence } : {}),
    ...(options.onChunk ? { onChunk: options.onChunk } : {}),
    ...(options.budget ? { budget: options.budget } : {}),
  });
  return { transcript, summary, workspaceId: session.workspaceId };
}

/** The worker's runner: each job harvests its transcript with the extractor the settings name. */
export function harvestJobRunner(services: HarvestServices, extractor: () => Extractor): JobRunner {
  return async (job, progress) => {
    const settings = services.registry.settings();
    const { transcript, summary } = await harvestFile(services, job.transcript, {
      extractor: extractor(),
      cwd: job.cwd ?? undefined,
      minConfidence: settings.harvestMinConfidence,
      budget: settings.harvestBudget,
      onTranscript: (t) => progress.session(t.agent, t.sessionId),
      onChunk: (index, count) => progress.chunk(index, count),
    });
    if (summary.status === 'busy') return { outcome: 'busy' };
    return runOutcome(transcript, summary);
  };
}

/** A finished harvest as the workspace's status records it. */
export function runOutcome(transcript: Transcript, summary: HarvestSummary): Exclude<JobOutcome, { outcome: 'busy' }> {
  return {
    outcome: summary.proposed.length > 0 ? 'succeeded' : 'nothing-found',
    agent: transcript.agent,
    sessionId: transcript.sessionId,
    proposed: summary.proposed.length,
    skipped: Object.fromEntries(Object.entries(summary.rejected).filter(([, n]) => n > 0)),
    cost: summary.cost,
    ...(summary.heldBack > 0 ? { heldBack: summary.heldBack } : {}),
    ...(summary.stopped ? { stopped: summary.stopped } : {}),
  };
}
