/**
 * The one place a process opens a Cairn home's services, and closes them in order. Every host
 * uses it: the app (src/main/electron), `cairn serve` and the tests' hosts (./app-host.ts),
 * `cairn mcp`, and the short-lived commands (`cairn tool`, `context`, `pin`, `unpin`, `stats`,
 * `workspace`).
 *
 *   const home = openHome(resolveHome(), { feed: true });
 *   const session = await home.registry.session(workspaceId);
 *   await home.service.execute(command, session, { mode: 'exec', actor: 'agent' });
 *   ...
 *   await home.close();
 *
 * What it opens, one of each per home:
 * - `runtime`: the process's ONE LocalRuntime (localRuntime()), shared by every home the process
 *   opens, by the registry and by every local session. It keeps nothing about the disk between
 *   calls (docs/architecture.md, "What is kept between calls"), so one is all a process needs, and
 *   nothing can differ between two views of the same root.
 * - `usage` (pins and usage, <home>/memory-meta.json) and `journal` (<home>/journal/);
 * - `history` (<home>/history/): every change's bytes before and after;
 * - `seen` (<home>/seen.json): when the person last opened each file, for its badges;
 * - `consolidations` (<home>/sweeps/): consolidation proposals, applied through `service`;
 * - `agentFiles` (<home>/agent-files/): other agents' files under the user's home and in each
 *   checkout, read and saved for a person, never memory;
 * - `service`: the MemoryService, recording usage, each change's history, and appending every
 *   change to the journal; an agent's writes to a scope under review (the setting `reviewScopes`,
 *   read per write) go to the inbox instead (inbox/review-mode.ts);
 * - `registry`: the workspaces of <home>/config.json, reached through `runtime` (and SSH);
 * - `builder`: the ContextBuilder (index, hot set, relevance, the UI's listing), starting from the
 *   facts cache without writing it;
 * - `changes`, with `feed`: a ChangeFeed (this process's writes, other processes' through the
 *   journal, outside edits to watched roots, each recorded in the history: OutsideEdits), for the
 *   hosts that follow changes live (the app, `cairn serve`, `cairn mcp`); null otherwise. Such a
 *   host also collects the history's old versions when idle (IdleCollector), and answers the
 *   prompt hook on the home's socket, or stands by while another host does (context/context-host.ts).
 *
 * A home that belongs to another user, or that others may write to, is refused (ForeignHomeError,
 * saying what to run): another user could otherwise put memory into the person's agents' context.
 *
 * close() stops the feed (watchers, the journal tail), then writes the usage still pending, then
 * waits for a journal rotation in progress: after it, everything the process did is on disk.
 * It is idempotent; the services must not be used after it.
 */
import * as os from 'node:os';
import { AgentFiles } from '../agent-files/agent-files';
import { ContextHost } from '../context/context-host';
import { HistoryStore } from '../history/history-store';
import { InboxStore } from '../inbox/inbox-store';
import { ReviewMode } from '../inbox/review-mode';
import { OutsideEdits } from '../memory/outside-edits';
import { heldPaths } from '../memory/held-outside-edits';
import { PulledMemory } from '../inbox/pulled-memory';
import type { MemoryChangeEvent } from '../../common/memory/events';
import type { MemorySession } from '../memory/session';
import { IdleCollector, type IdleCollectorOptions } from './idle-collector';
import { VersionHistory } from '../memory/version-history';
import { ChangeFeed, type ChangeFeedOptions } from '../journal/change-feed';
import { Journal } from '../journal/journal';
import { ContextBuilder } from '../context/context-builder';
import { ContextFactsCache } from '../context/context-facts-cache';
import { MemoryService } from '../memory/memory-service';
import { SeenStore } from '../memory/seen-store';
import { UsageStore } from '../memory/usage-store';
import { LocalRuntime } from '../runtime/local/local-runtime';
import { assertOwnHome } from '../runtime/local/ownership';
import { Consolidations } from '../consolidation/consolidations';
import { WorkspaceRegistry, type RegistryOptions } from '../workspaces/registry';

let processRuntime: LocalRuntime | null = null;

/** The process's one LocalRuntime (made on first use). */
export function localRuntime(): LocalRuntime {
  processRuntime ??= new LocalRuntime();
  return processRuntime;
}

/** How a feed is tuned (its home, journal and service are the home's own). */
export type FeedOptions = Omit<ChangeFeedOptions, 'home' | 'journal' | 'service'>;

export interface OpenHomeOptions {
  /** Follow changes live with a ChangeFeed (true, or its options). Default: no feed. */
  readonly feed?: boolean | FeedOptions;
  /** How SSH hosts are reached (tests point ~/.ssh and the agent elsewhere). */
  readonly ssh?: RegistryOptions['ssh'];
  readonly connection?: RegistryOptions['connection'];
  /** The idle gc of a host with a feed (tests give it a fake clock). */
  readonly collector?: Omit<IdleCollectorOptions, 'collect'>;
  /** The user's home, where other agents keep their global files (default: os.homedir(); tests give a temp one). */
  readonly userHome?: string;
}

export interface HomeServices {
  /** The home's directory. */
  readonly home: string;
  readonly runtime: LocalRuntime;
  readonly usage: UsageStore;
  readonly journal: Journal;
  readonly history: HistoryStore;
  /** When the person last opened each file (the badges of what agents changed since). */
  readonly seen: SeenStore;
  readonly service: MemoryService;
  /** What a person does with the history: list, read, restore, undo (the CLI's and the API's). */
  readonly versions: VersionHistory;
  /** Memories proposed from the agents' sessions, waiting for a person (<home>/inbox). */
  readonly inbox: InboxStore;
  /** Consolidation proposals per scope root (<home>/sweeps): propose, apply, discard. */
  readonly consolidations: Consolidations;
  /** Other agents' files: list, read, save, search, adopt, compare; their own history. */
  readonly agentFiles: AgentFiles;
  readonly registry: WorkspaceRegistry;
  readonly builder: ContextBuilder;
  /** The live change feed, when asked for (OpenHomeOptions.feed). */
  readonly changes: ChangeFeed | null;
  /** Closes everything, in order (see the module header); idempotent. */
  close(): Promise<void>;
}

/** The services of a home opened with a feed. */
export interface LiveHomeServices extends HomeServices {
  readonly changes: ChangeFeed;
}

export function openHome(home: string, options: OpenHomeOptions & { feed: true | FeedOptions }): LiveHomeServices;
export function openHome(home: string, options?: OpenHomeOptions): HomeServices;
export function openHome(home: string, options: OpenHomeOptions = {}): HomeServices {
  // Another user's home, or one others may write to, is never served (runtime/local/ownership.ts).
  assertOwnHome(home);
  const runtime = localRuntime();
  const usage = new UsageStore(home);
  const journal = new Journal(home);
  const history = new HistoryStore(home);
  const seen = new SeenStore(home);
  const inbox = new InboxStore(home);
  const registry = new WorkspaceRegistry(home, {
    local: runtime,
    ...(options.ssh ? { ssh: options.ssh } : {}),
    ...(options.connection ? { connection: options.connection } : {}),
  });
  const review = new ReviewMode(inbox, () => registry.reviewScopes());
  const service = new MemoryService({ usage, sink: journal, history, review });
  const versions = new VersionHistory(history, service);
  const consolidations = new Consolidations({ home, service, history, usage });
  // Its first snapshot of a root starts from the facts cache (a window's first tree reads only the
  // files changed since a hook or an agent's session last looked), which it leaves to them to write.
  const builder = new ContextBuilder(usage, { factsCache: new ContextFactsCache(home), readOnlyCache: true, held: (session) => heldPaths(home, session) });
  const agentFiles = new AgentFiles({ home, userHome: options.userHome ?? os.homedir(), registry, inbox, service });
  const feedOptions = options.feed === true ? {} : options.feed || null;
  const outsideEdits = new OutsideEdits(history);
  // Project memory a pull brings is held in the Inbox when flagged or under review (pulled-memory.ts).
  const pulled = new PulledMemory({ inbox, history, underReview: (scope, session) => review.underReview(scope, session) });
  const recordOutside = async (event: MemoryChangeEvent, session: MemorySession): Promise<string | undefined> => {
    const id = await outsideEdits.record(event, session);
    if (id !== undefined && event.scope === 'project') await pulled.consider(event.path, session);
    return id;
  };
  const changes = feedOptions ? new ChangeFeed({ ...feedOptions, home, journal, service, recordOutside }) : null;
  // A long-lived host collects what the history's retention no longer keeps, when it is idle.
  const collector = feedOptions ? new IdleCollector({ collect: () => history.gc(), ...(options.collector ?? {}) }) : null;
  const unnote = collector ? service.onChange(() => collector.noteChange()) : null;
  // A long-lived host answers the prompt hook, or stands by while another of the home does.
  const contextHost = feedOptions ? ContextHost.start(home, runtime) : null;
  let closing: Promise<void> | null = null;
  return {
    home,
    runtime,
    usage,
    journal,
    history,
    seen,
    service,
    versions,
    inbox,
    consolidations,
    agentFiles,
    registry,
    builder,
    changes,
    close() {
      closing ??= (async () => {
        await (await contextHost)?.close();
        collector?.stop();
        unnote?.();
        await changes?.close();
        await usage.flush();
        await journal.flush();
      })();
      return closing;
    },
  };
}
