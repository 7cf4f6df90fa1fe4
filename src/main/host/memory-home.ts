/**
 * The part of a home's services a one-shot memory command needs (`cairn tool`, `pin`, `unpin`,
 * `stats`, `workspace`): the memory, its sidecars and the workspaces, and nothing that follows
 * changes, proposes consolidations or reads other agents' files. openHome (./home-services.ts)
 * builds every host's services on these, so a memory command and a host write through the same
 * objects wired the same way; a command that loads only this module loads only what it uses, and
 * the tool call an agent waits for does not parse the watcher, the transcript readers or the
 * consolidation.
 *
 * What it opens, one of each per home (see home-services.ts for each): the process's one
 * LocalRuntime, `usage`, `journal`, `history`, `inbox`, `service` (with review mode: an agent's
 * write to a scope under review goes to the inbox), `registry` and `builder`.
 *
 * close() writes the usage still pending, then waits for a journal rotation in progress: after it,
 * everything the process did is on disk. It is idempotent; the services must not be used after it.
 */
import { ContextBuilder } from '../context/context-builder';
import { ContextFactsCache } from '../context/context-facts-cache';
import { HistoryStore } from '../history/history-store';
import { InboxStore } from '../inbox/inbox-store';
import { ReviewMode } from '../inbox/review-mode';
import { Journal } from '../journal/journal';
import { heldPaths } from '../memory/held-outside-edits';
import { MemoryService } from '../memory/memory-service';
import { UsageStore } from '../memory/usage-store';
import { LocalRuntime } from '../runtime/local/local-runtime';
import { assertOwnHome } from '../runtime/local/ownership';
import { WorkspaceRegistry, type RegistryOptions } from '../workspaces/registry';

let processRuntime: LocalRuntime | null = null;

/** The process's one LocalRuntime (made on first use). */
export function localRuntime(): LocalRuntime {
  processRuntime ??= new LocalRuntime();
  return processRuntime;
}

export interface MemoryHomeOptions {
  /** How SSH hosts are reached (tests point ~/.ssh and the agent elsewhere). */
  readonly ssh?: RegistryOptions['ssh'];
  readonly connection?: RegistryOptions['connection'];
}

export interface MemoryHome {
  /** The home's directory. */
  readonly home: string;
  readonly runtime: LocalRuntime;
  readonly usage: UsageStore;
  readonly journal: Journal;
  readonly history: HistoryStore;
  /** Memories proposed from the agents' sessions, waiting for a person (<home>/inbox). */
  readonly inbox: InboxStore;
  /** Whether an agent's write to a scope goes to the inbox (the setting `reviewScopes`). */
  readonly review: ReviewMode;
  readonly service: MemoryService;
  readonly registry: WorkspaceRegistry;
  readonly builder: ContextBuilder;
  /** Writes what is pending (see the module header); idempotent. */
  close(): Promise<void>;
}

export function openMemoryHome(home: string, options: MemoryHomeOptions = {}): MemoryHome {
  // Another user's home, or one others may write to, is never served (runtime/local/ownership.ts).
  assertOwnHome(home);
  const runtime = localRuntime();
  const usage = new UsageStore(home);
  const journal = new Journal(home);
  const history = new HistoryStore(home);
  const inbox = new InboxStore(home);
  const registry = new WorkspaceRegistry(home, {
    local: runtime,
    ...(options.ssh ? { ssh: options.ssh } : {}),
    ...(options.connection ? { connection: options.connection } : {}),
  });
  const review = new ReviewMode(inbox, () => registry.reviewScopes());
  const service = new MemoryService({ usage, sink: journal, history, review });
  // Its first snapshot of a root starts from the facts cache (a window's first tree reads only the
  // files changed since a hook or an agent's session last looked), which it leaves to them to write.
  const builder = new ContextBuilder(usage, { factsCache: new ContextFactsCache(home), readOnlyCache: true, held: (session) => heldPaths(home, session) });
  let closing: Promise<void> | null = null;
  return {
    home,
    runtime,
    usage,
    journal,
    history,
    inbox,
    review,
    service,
    registry,
    builder,
    close() {
      closing ??= (async () => {
        await usage.flush();
        await journal.flush();
      })();
      return closing;
    },
  };
}
