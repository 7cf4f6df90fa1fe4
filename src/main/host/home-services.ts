/**
 * The one place a host opens a Cairn home's services, and closes them in order: the app
 * (src/main/electron), `cairn serve` and the tests' hosts (./app-host.ts), `cairn mcp`, and the
 * person's commands that need more than the memory (`history`, `inbox`, `consolidate`, `sync`, ...).
 * A one-shot memory command (`cairn tool`, `pin`, `unpin`, `stats`, `workspace`) opens only the
 * memory's part (./memory-home.ts), which this builds on, so both are wired the same way.
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
import { OutsideEdits } from '../memory/outside-edits';
import { PulledMemory } from '../inbox/pulled-memory';
import type { MemoryChangeEvent } from '../../common/memory/events';
import type { MemorySession } from '../memory/session';
import { IdleCollector, type IdleCollectorOptions } from './idle-collector';
import { VersionHistory } from '../memory/version-history';
import { ChangeFeed, type ChangeFeedOptions } from '../journal/change-feed';
import { SeenStore } from '../memory/seen-store';
import { Consolidations } from '../consolidation/consolidations';
import { openMemoryHome, type MemoryHome, type MemoryHomeOptions } from './memory-home';

/** How a feed is tuned (its home, journal and service are the home's own). */
export type FeedOptions = Omit<ChangeFeedOptions, 'home' | 'journal' | 'service'>;

export interface OpenHomeOptions extends MemoryHomeOptions {
  /** Follow changes live with a ChangeFeed (true, or its options). Default: no feed. */
  readonly feed?: boolean | FeedOptions;
  /** The idle gc of a host with a feed (tests give it a fake clock). */
  readonly collector?: Omit<IdleCollectorOptions, 'collect'>;
  /** The user's home, where other agents keep their global files (default: os.homedir(); tests give a temp one). */
  readonly userHome?: string;
}

/** A memory home's services (./memory-home.ts), and what the hosts and the person's commands add. */
export interface HomeServices extends MemoryHome {
  /** When the person last opened each file (the badges of what agents changed since). */
  readonly seen: SeenStore;
  /** What a person does with the history: list, read, restore, undo (the CLI's and the API's). */
  readonly versions: VersionHistory;
  /** Consolidation proposals per scope root (<home>/sweeps): propose, apply, discard. */
  readonly consolidations: Consolidations;
  /** Other agents' files: list, read, save, search, adopt, compare; their own history. */
  readonly agentFiles: AgentFiles;
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
  const memory = openMemoryHome(home, options);
  const { runtime, usage, history, inbox, review, service, registry } = memory;
  const seen = new SeenStore(home);
  const versions = new VersionHistory(history, service);
  const consolidations = new Consolidations({ home, service, history, usage });
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
  const changes = feedOptions ? new ChangeFeed({ ...feedOptions, home, journal: memory.journal, service, recordOutside }) : null;
  // A long-lived host collects what the history's retention no longer keeps, when it is idle.
  const collector = feedOptions ? new IdleCollector({ collect: () => history.gc(), ...(options.collector ?? {}) }) : null;
  const unnote = collector ? service.onChange(() => collector.noteChange()) : null;
  // A long-lived host answers the prompt hook, or stands by while another of the home does.
  const contextHost = feedOptions ? ContextHost.start(home, runtime) : null;
  let closing: Promise<void> | null = null;
  return {
    ...memory,
    seen,
    versions,
    consolidations,
    agentFiles,
    changes,
    close() {
      closing ??= (async () => {
        await (await contextHost)?.close();
        collector?.stop();
        unnote?.();
        await changes?.close();
        await memory.close();
      })();
      return closing;
    },
  };
}
