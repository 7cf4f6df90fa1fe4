/**
 * Other agents' files under the scope tree, apart from Cairn memory: a group per agent
 * whose files exist (Claude Code, Codex, Cursor, GitHub Copilot, Gemini CLI), global files (in the
 * person's home) and the checkout's, each with its size, last change and which agents read it; a
 * file that cannot be opened says why, and a symbolic link says where it leads. The filter box above narrows it by path; in content mode it
 * shows agentFiles.search's hits (ranked as memory_search ranks) with the matching words marked, in
 * their own group. "Compare…" opens the side-by-side comparison of any files, memory ones too.
 * A row's menu (right click, Shift+F10 or the ContextMenu key): Open, Adopt the whole file…,
 * Compare with…, Copy path.
 *
 * Invariant: none of this is memory. The header says these files are not injected by Cairn, and
 * nothing here counts them with memory.
 */
import { useQuery } from '@tanstack/react-query';
import { AlertTriangle, ChevronDown, ChevronRight, Columns3, FileCode2, Link2, RefreshCw } from 'lucide-react';
import { useMemo, useState } from 'react';
import { AGENT_NAMES, type AgentFile } from '../../../common/agent-files/schema';
import { errorMessage, useApi } from '../../api/api-context';
import { copyText } from '../../lib/copy-text';
import { relativeTime } from '../../lib/relative-time';
import { useStoredState } from '../../lib/use-stored-state';
import { PopupMenu } from '../../lib/PopupMenu';
import { Toast } from '../history/Toast';
import { Highlighted } from '../tree/ContentResults';
import { AdoptDialog } from './AdoptDialog';
import { CompareDialog } from './CompareDialog';
import { groupByAgent, matchesFilter, readByText, shortPath, sizeText } from './agent-files-model';

export interface AgentFilesSectionProps {
  workspaceId: string;
  /** The filter box's text, and whether it searches content (MemoryBrowser's onQuery). */
  query: string;
  contentMode: boolean;
  /** The id of the agent file open in the editor, if one is. */
  selectedId: string | null;
  onOpen: (id: string) => void;
  /** Shows the Inbox (after an adopt). */
  onOpenInbox: () => void;
}

const OPEN_KEY = 'cairn.agentFilesOpen';

const parseOpen = (v: string | null) => v !== 'false';

export function AgentFilesSection({ workspaceId, query, contentMode, selectedId, onOpen, onOpenInbox }: AgentFilesSectionProps) {
  const { orpc } = useApi();
  const [open, setOpen] = useStoredState(OPEN_KEY, parseOpen);
  /** What Compare starts with (null: closed). */
  const [comparing, setComparing] = useState<readonly string[] | null>(null);
  const [adopting, setAdopting] = useState<string | null>(null);
  const [menu, setMenu] = useState<{ file: AgentFile; x: number; y: number; opener: HTMLElement } | null>(null);
  const [copied, setCopied] = useState<{ key: number; text: string } | null>(null);
  const say = (text: string) => setCopied({ key: Date.now(), text });
  // Cairn does not watch these files: asked again when the window gets the focus, or on Refresh.
  const list = useQuery({ ...orpc.agentFiles.list.queryOptions({ input: { workspaceId } }), refetchOnWindowFocus: true });
  const text = query.trim();
  const searching = contentMode && text !== '';
  const search = useQuery({
    ...orpc.agentFiles.search.queryOptions({ input: { workspaceId, query: text, limit: 50 } }),
    enabled: open && searching,
    placeholderData: (previous) => previous,
  });
  const files = list.data?.files;
  const shown = useMemo(() => (files ?? []).filter((f) => contentMode || matchesFilter(f, text)), [files, contentMode, text]);
  const groups = useMemo(() => groupByAgent(shown), [shown]);
  const count = files?.length ?? 0;

  return (
    <section className={open ? 'agent-files open' : 'agent-files'} aria-label="Other agents' files">
      <header className="af-head">
        <button type="button" className="af-toggle" aria-expanded={open} onClick={() => setOpen(!open)}>
          {open ? <ChevronDown size={14} aria-hidden /> : <ChevronRight size={14} aria-hidden />}
          <span className="af-title">Other agents' files</span>
          <span className="af-note">not injected by Cairn</span>
          {files && <span className="af-count">{count}</span>}
        </button>
        <button type="button" className="icon-btn" aria-label="Refresh other agents' files" title="Look at the files again (Cairn does not watch them)" onClick={() => void list.refetch()}>
          <RefreshCw size={13} aria-hidden className={list.isFetching ? 'spin' : undefined} />
        </button>
        <button type="button" className="btn small" onClick={() => setComparing(selectedId ? [selectedId] : [])} disabled={!files} title="Lines that agents' files and Cairn memory state differently, side by side">
          <Columns3 size={13} aria-hidden /> Compare…
        </button>
      </header>
      {open && (
        <div className="af-body">
          {list.isError ? (
            <div className="af-note-line error-text" role="alert">
              Could not look at other agents' files: {errorMessage(list.error)}{' '}
              <button type="button" className="link" onClick={() => void list.refetch()}>
                Retry
              </button>
            </div>
          ) : !list.data ? (
            <NoFilesNote status="Looking for other agents' files…" busy />
          ) : searching ? (
            <SearchHits query={text} hits={search.data?.hits} error={search.isError ? errorMessage(search.error) : null} selectedId={selectedId} onOpen={onOpen} />
          ) : (
            <>
              {!list.data.checkout.available && (
                <p className="af-note-line warn-text">
                  <AlertTriangle size={13} aria-hidden /> The checkout's files could not be looked at{list.data.checkout.reason ? `: ${list.data.checkout.reason}` : '.'}
                </p>
              )}
              {count === 0 ? (
                <NoFilesNote status="No other agent's files here." />
              ) : groups.length === 0 ? (
                <p className="af-note-line muted">No other agent's file matches the filter.</p>
              ) : (
                groups.map((g) => (
                  <div key={g.agent} className="af-group" role="group" aria-label={g.name}>
                    <h3 className="af-agent">
                      {g.name} <span className="af-agent-count">{g.files.length}</span>
                    </h3>
                    <ul className="af-files">
                      {g.files.map((f) => (
                        <li key={f.id}>
                          <FileRow file={f} selected={f.id === selectedId} onOpen={onOpen} onMenu={(x, y, opener) => setMenu({ file: f, x, y, opener })} />
                        </li>
                      ))}
                    </ul>
                  </div>
                ))
              )}
            </>
          )}
        </div>
      )}
      {menu && (
        <PopupMenu
          x={menu.x}
          y={menu.y}
          className="row-menu"
          label={`Actions for ${menu.file.path}`}
          items={[
            { label: 'Open', shortcut: 'Enter', run: () => onOpen(menu.file.id) },
            { label: 'Adopt the whole file…', run: () => setAdopting(menu.file.id) },
            { label: 'Compare with…', run: () => setComparing([menu.file.id]) },
            { label: 'Copy path', run: () => copyText(menu.file.path, menu.file.path, say) },
          ]}
          onClose={(refocus) => {
            if (refocus) menu.opener.focus();
            setMenu(null);
          }}
        />
      )}
      {copied && <Toast key={copied.key} message={copied.text} durationMs={4000} onDismiss={() => setCopied(null)} />}
      {adopting && <AdoptDialog workspaceId={workspaceId} id={adopting} selected={[]} onClose={() => setAdopting(null)} onOpenInbox={onOpenInbox} />}
      {comparing && files && <CompareDialog workspaceId={workspaceId} agentFiles={files} initial={comparing} onClose={() => setComparing(null)} />}
    </section>
  );
}

/**
 * What the section says while it has no file to show: what it is doing or found, then which files
 * would show. Looking and finding nothing take the same lines, so the tree above it does not move
 * when the answer comes.
 */
function NoFilesNote({ status, busy = false }: { status: string; busy?: boolean }) {
  return (
    <div className="af-note-line af-no-files muted">
      <span role={busy ? 'status' : undefined}>{status}</span>
      <span>CLAUDE.md, AGENTS.md, .cursor/rules, .github/copilot-instructions.md and GEMINI.md show here when they exist.</span>
    </div>
  );
}

function FileRow({ file, selected, onOpen, onMenu }: { file: AgentFile; selected: boolean; onOpen: (id: string) => void; onMenu: (x: number, y: number, opener: HTMLElement) => void }) {
  const when = relativeTime(file.mtime);
  const facts = (
    <>
      <span className="af-line1">
        <FileCode2 size={14} aria-hidden className="af-icon" />
        <span className="af-path" title={file.path}>
          {shortPath(file.path)}
        </span>
        {file.kind === 'memory' && (
          <span className="badge af-kind" title={`${AGENT_NAMES[file.agent]} writes this memory itself`}>
            auto memory
          </span>
        )}
        {file.place === 'global' && (
          <span className="badge af-global" title="In your home: read in every project">
            global
          </span>
        )}
      </span>
      <span className="af-line2">
        {file.linkTo && (
          <span className="af-link" title={`A symbolic link to ${file.linkTo}`}>
            <Link2 size={12} aria-hidden /> link to {file.linkTo}
          </span>
        )}
        {file.unreadable ? (
          <span className="af-unreadable">
            <AlertTriangle size={12} aria-hidden /> Cannot be opened: {file.unreadable}
          </span>
        ) : (
          <>
            <span className="af-size">{sizeText(file.size)}</span>
            {when && <span className="af-when">{when}</span>}
            <span className="af-readby">{readByText(file.readBy)}</span>
          </>
        )}
      </span>
    </>
  );
  if (file.unreadable) {
    return (
      <div className="af-file unreadable" aria-label={file.path} title={`${file.path}: ${file.unreadable}`}>
        {facts}
      </div>
    );
  }
  return (
    <button
      type="button"
      className={selected ? 'af-file selected' : 'af-file'}
      aria-label={file.path}
      aria-current={selected ? 'true' : undefined}
      aria-haspopup="menu"
      title={`${file.path} (${AGENT_NAMES[file.agent]}, ${file.kind})`}
      onClick={() => onOpen(file.id)}
      onContextMenu={(e) => {
        e.preventDefault();
        onMenu(e.clientX, e.clientY, e.currentTarget);
      }}
      onKeyDown={(e) => {
        if (e.key !== 'ContextMenu' && !(e.key === 'F10' && e.shiftKey)) return;
        e.preventDefault();
        const r = e.currentTarget.getBoundingClientRect();
        onMenu(r.left + 24, r.bottom, e.currentTarget);
      }}
    >
      {facts}
    </button>
  );
}

function SearchHits({ query, hits, error, selectedId, onOpen }: { query: string; hits: readonly { id: string; agent: AgentFile['agent']; line: number; text: string; matches: [number, number][] }[] | undefined; error: string | null; selectedId: string | null; onOpen: (id: string) => void }) {
  if (error)
    return (
      <p className="af-note-line error-text" role="alert">
        {error}
      </p>
    );
  if (!hits)
    return (
      <p className="af-note-line muted" role="status">
        Searching other agents' files…
      </p>
    );
  if (hits.length === 0)
    return (
      <p className="af-note-line muted" role="status">
        No other agent's file matches “{query}”.
      </p>
    );
  return (
    <>
      <h3 className="af-agent" aria-hidden>
        Matches in other agents' files <span className="af-agent-count">{hits.length}</span>
      </h3>
      <ul className="af-hits" aria-label={`Matches in other agents' files (${hits.length})`}>
        {hits.map((h) => (
          <li key={`${h.id}:${h.line}`}>
            <button type="button" className={h.id === selectedId ? 'content-hit af-hit selected' : 'content-hit af-hit'} aria-label={`${h.id}, line ${h.line}`} onClick={() => onOpen(h.id)}>
              <span className="hit-path" title={h.id}>
                {shortPath(h.id)} <span className="af-hit-where">line {h.line} · {AGENT_NAMES[h.agent]}</span>
              </span>
              <span className="hit-line">
                <Highlighted line={h.text} matches={h.matches} />
              </span>
            </button>
          </li>
        ))}
      </ul>
    </>
  );
}
