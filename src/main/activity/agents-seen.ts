/**
 * AgentsSeen owns `<home>/agents-seen/`: which agents have been seen in each workspace, and which
 * are connected now, so a person can tell that an agent's setup worked. One small file per
 * workspace, agent and session (`<sha256 of the three>.json`: {"version":1,"workspaceId","name",
 * "session","at","pid","open"}), written whole by the one write of Cairn's own files
 * (runtime/local/atomic-write.ts). An MCP session writes its file when the client has initialized
 * (open, with the serving process's pid) and again when it ends (closed); a hook or `cairn tool`
 * call writes it closed (seen, never "connected").
 *
 * Invariants:
 * - each file has one writer at a time (a session is one process), so processes never race on a
 *   file and no lock is needed; readers see an old file or a new one;
 * - "connected" is an open record whose process is still alive on this machine: a killed `cairn
 *   mcp` (no close written) reads as seen at its last time, never as connected forever;
 * - a file that does not parse is skipped (reported nowhere: it is a hint, not a record), and files
 *   older than KEEP_DAYS are removed by the next write;
 * - a call's `seen` is written at most once per SEEN_EVERY_MS per session (a hook runs before every
 *   prompt; the time shown is minutes, not milliseconds).
 */
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { agentRefOf, type AgentRef } from '../../common/activity/agents';
import { writeOwnFileSync } from '../runtime/local/atomic-write';
import { processRuns } from '../runtime/local/process-alive';

const AGENTS_SEEN_DIR = 'agents-seen';
/** Records older than this are removed (an agent not seen for a month is not "last seen"). */
export const KEEP_DAYS = 30;
/** A call's record is written again only when older than this. */
const SEEN_EVERY_MS = 60_000;
const DAY_MS = 24 * 60 * 60 * 1000;

/** One agent in one workspace: its last session, when last seen, and whether connected now. */
export interface AgentSeen {
  readonly workspaceId: string;
  readonly name: string;
  readonly session: string;
  readonly at: string;
  readonly connected: boolean;
}

interface SeenRecord {
  readonly version: 1;
  readonly workspaceId: string;
  readonly name: string;
  readonly session: string;
  readonly at: string;
  readonly pid: number;
  readonly open: boolean;
}

function parseRecord(text: string): SeenRecord | null {
  try {
    const o = JSON.parse(text) as Partial<SeenRecord> | null;
    if (!o || o.version !== 1 || typeof o.workspaceId !== 'string' || typeof o.at !== 'string' || Number.isNaN(Date.parse(o.at))) return null;
    if (typeof o.pid !== 'number' || typeof o.open !== 'boolean') return null;
    const ref = agentRefOf(o.name, o.session);
    return ref && ref.name === o.name ? { version: 1, workspaceId: o.workspaceId, name: ref.name, session: ref.session, at: o.at, pid: o.pid, open: o.open } : null;
  } catch {
    return null;
  }
}

export interface AgentsSeenOptions {
  /** The clock, ms since the epoch (tests move a fake one). */
  readonly now?: () => number;
  /** Whether a process is alive (tests stand in for a killed one). */
  readonly alive?: (pid: number) => boolean;
}

export class AgentsSeen {
  readonly dir: string;
  private readonly now: () => number;
  private readonly alive: (pid: number) => boolean;

  constructor(home: string, options: AgentsSeenOptions = {}) {
    this.dir = path.join(home, AGENTS_SEEN_DIR);
    this.now = options.now ?? Date.now;
    this.alive = options.alive ?? processRuns;
  }

  /**
   * An MCP session of `agent` in `workspaceId` is open from now on; returns the call that records
   * its end. Never throws: the record is a hint, and its failure must not fail the session.
   */
  connected(workspaceId: string | null, agent: AgentRef): () => void {
    if (workspaceId === null) return () => {};
    this.write(workspaceId, agent, true);
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      this.write(workspaceId, agent, false);
    };
  }

  /** A call of `agent` (a hook, `cairn tool`) in `workspaceId` now; written at most once a minute per session. Never throws. */
  seen(workspaceId: string | null, agent: AgentRef): void {
    if (workspaceId === null) return;
    const file = this.fileOf(workspaceId, agent);
    try {
      const known = parseRecord(fs.readFileSync(file, 'utf8'));
      if (known && (known.open && this.alive(known.pid) ? true : this.now() - Date.parse(known.at) < SEEN_EVERY_MS)) return;
    } catch {
      // None yet: written below.
    }
    this.write(workspaceId, agent, false);
  }

  /** Every agent seen, one per workspace and agent (its latest session), newest first. */
  list(): AgentSeen[] {
    let names: string[];
    try {
      names = fs.readdirSync(this.dir);
    } catch {
      return [];
    }
    const best = new Map<string, AgentSeen>();
    for (const name of names) {
      if (!name.endsWith('.json')) continue;
      let record: SeenRecord | null;
      try {
        record = parseRecord(fs.readFileSync(path.join(this.dir, name), 'utf8'));
      } catch {
        continue;
      }
      if (!record) continue;
      const seen: AgentSeen = { workspaceId: record.workspaceId, name: record.name, session: record.session, at: record.at, connected: record.open && this.alive(record.pid) };
      const key = `${record.workspaceId}\0${record.name}`;
      const other = best.get(key);
      // A connected session wins over a later one that ended; else the latest.
      if (!other || (seen.connected && !other.connected) || (seen.connected === other.connected && seen.at > other.at)) best.set(key, seen);
    }
    return [...best.values()].sort((a, b) => (a.at < b.at ? 1 : a.at > b.at ? -1 : 0));
  }

  /** Calls `listener` when any process writes a record (the app then asks for the list again); returns the stop function. */
  watch(listener: () => void): () => void {
    try {
      fs.mkdirSync(this.dir, { recursive: true, mode: 0o700 });
      const watcher = fs.watch(this.dir, () => listener());
      watcher.on('error', () => watcher.close());
      return () => watcher.close();
    } catch {
      // Not watchable: the app's periodic look still finds changes.
      return () => {};
    }
  }

  private fileOf(workspaceId: string, agent: AgentRef): string {
    const hash = createHash('sha256').update(`${workspaceId}\0${agent.name}\0${agent.session}`).digest('hex').slice(0, 32);
    return path.join(this.dir, `${hash}.json`);
  }

  private write(workspaceId: string, agent: AgentRef, open: boolean): void {
    const record: SeenRecord = { version: 1, workspaceId, name: agent.name, session: agent.session, at: new Date(this.now()).toISOString(), pid: process.pid, open };
    try {
      writeOwnFileSync(this.fileOf(workspaceId, agent), `${JSON.stringify(record)}\n`);
      this.prune();
    } catch (err) {
      process.stderr.write(`cairn: could not record that ${agent.name} was seen: ${(err as NodeJS.ErrnoException)?.code ?? String(err)}\n`);
    }
  }

  /** Removes records not written for KEEP_DAYS. */
  private prune(): void {
    const horizon = this.now() - KEEP_DAYS * DAY_MS;
    for (const name of fs.readdirSync(this.dir)) {
      if (!name.endsWith('.json')) continue;
      const file = path.join(this.dir, name);
      try {
        if (fs.statSync(file).mtimeMs < horizon) fs.rmSync(file, { force: true });
      } catch {
        // Gone meanwhile.
      }
    }
  }
}
