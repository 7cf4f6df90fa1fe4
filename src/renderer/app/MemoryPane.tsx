/**
 * One view's memory: the browser (tree) on the left, the open file (or the first-run guide, or the
 * Inbox of proposed memories) on the right; on a narrow window the open file or the Inbox replaces
 * the tree. Switching files (or opening the Inbox) with unsaved edits asks first. `/` focuses the
 * filter. The split between the two can be dragged or moved from the keyboard (PaneSplitter);
 * Collapse all / Expand all act on the tree; "What agents receive" shows the index and hot set
 * agents get (ContextPreview).
 */
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { ChevronsDownUp, ChevronsUpDown, Eye, FileText, Inbox, Plus } from 'lucide-react';
import { lazy, Suspense, useCallback, useEffect, useRef, useState } from 'react';
import type { Scope } from '../../common/memory/constants';
import { useApi } from '../api/api-context';
import { agentIdOf, agentOpenKey, openKeyText } from '../features/agent-files/agent-files-model';
import { AgentFilesSection } from '../features/agent-files/AgentFilesSection';
import { ContextPreview } from '../features/context-preview/ContextPreview';
import { ConfirmDialog } from '../features/dialogs/Dialog';
import { InboxPanel } from '../features/inbox/InboxPanel';
import { SweepPanel } from '../features/sweep/SweepPanel';
import { useInbox } from '../features/inbox/use-inbox';
import { FirstRun } from '../features/onboarding/FirstRun';
import { MemoryBrowser, type MemoryBrowserHandle } from '../features/tree/MemoryBrowser';
import { NewMemoryDialog } from '../features/tree/NewMemoryDialog';
import { usePin } from '../features/tree/use-pin';
import { PaneSplitter, useTreeWidth } from './PaneSplitter';

// The editor (CodeMirror and its diff) loads when a file is first opened, not with the tree.
const FileEditor = lazy(() => import('../features/editor/FileEditor').then((m) => ({ default: m.FileEditor })));
// Another agent's file opens in the same editor, with that file as its source.
const AgentFileEditor = lazy(() => import('../features/agent-files/AgentFileEditor').then((m) => ({ default: m.AgentFileEditor })));

export interface MemoryPaneProps {
  workspaceId: string | null;
  scopes?: readonly Scope[];
  title: string;
  dark: boolean;
  previewByDefault: boolean;
  /** Set while the open file has unsaved edits (the app asks before leaving the view). */
  dirtyRef: React.MutableRefObject<boolean>;
}

export function MemoryPane({ workspaceId, scopes, title, dark, previewByDefault, dirtyRef }: MemoryPaneProps) {
  const { orpc } = useApi();
  const queryClient = useQueryClient();
  const [openPath, setOpenPath] = useState<string | null>(null);
  const [inboxOpen, setInboxOpen] = useState(false);
  // Where the person asked to go while the open file had unsaved edits: a file, nothing, or the Inbox.
  const [pending, setPending] = useState<string | null | 'inbox' | { sweep: Scope } | undefined>(undefined);
  // The scope whose consolidation shows on the right, if any.
  const [sweeping, setSweeping] = useState<Scope | null>(null);
  const inbox = useInbox(workspaceId);
  // A damaged inbox file counts too: the person has to look at it.
  const inboxCount = (inbox.items?.length ?? 0) + inbox.damaged.length;
  const [creating, setCreating] = useState(false);
  const [previewing, setPreviewing] = useState(false);
  const browser = useRef<MemoryBrowserHandle>(null);
  const treeColumn = useRef<HTMLDivElement>(null);
  const [treeWidth, setTreeWidth] = useTreeWidth();
  const listOptions = orpc.memory.list.queryOptions({ input: { workspaceId } });
  // The browser loads the list; this only reads what it holds.
  const list = useQuery({ ...listOptions, enabled: false });
  // The filter box's text and mode: other agents' files below the tree follow it.
  const [query, setQuery] = useState({ text: '', content: false });
  const onQuery = useCallback((text: string, content: boolean) => setQuery({ text, content }), []);
  const openAgentId = agentIdOf(openPath);

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const t = e.target as HTMLElement;
      if (e.key !== '/' || t.closest('input, textarea, [contenteditable="true"], .cm-editor')) return;
      e.preventDefault();
      browser.current?.focusFilter();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);

  const go = useCallback(
    (path: string | null) => {
      if (dirtyRef.current && path !== openPath) setPending(path);
      else {
        setOpenPath(path);
        if (path !== null) {
          setInboxOpen(false);
          setSweeping(null);
        }
      }
    },
    [dirtyRef, openPath],
  );

  const openInbox = () => {
    if (inboxOpen) {
      setInboxOpen(false);
      return;
    }
    if (dirtyRef.current && openPath) {
      setPending('inbox');
      return;
    }
    setOpenPath(null);
    setSweeping(null);
    setInboxOpen(true);
  };

  const showSweep = (scope: Scope) => {
    setOpenPath(null);
    setInboxOpen(false);
    setSweeping(scope);
  };

  const consolidate = (scope: Scope) => {
    if (dirtyRef.current && openPath) setPending({ sweep: scope });
    else showSweep(scope);
  };

  const onDirtyChange = useCallback(
    (dirty: boolean) => {
      dirtyRef.current = dirty;
    },
    [dirtyRef],
  );

  const onPin = usePin(workspaceId);

  const files = list.data?.files;
  const openFile = openPath ? files?.find((f) => f.path === openPath) : undefined;
  const empty = files !== undefined && files.length === 0;
  const availableScopes = (list.data?.scopes ?? []).filter((s) => s.available && (!scopes || scopes.includes(s.scope))).map((s) => s.scope);

  return (
    <div className={openPath || inboxOpen || sweeping ? 'pane has-file' : 'pane'} style={treeWidth === null ? undefined : ({ '--tree-width': `${treeWidth}px` } as React.CSSProperties)}>
      <div className="pane-left" ref={treeColumn}>
        <header className="pane-head">
          <h1>{title}</h1>
          <div className="pane-tools">
            <button type="button" className="icon-btn" aria-label="Collapse all" title="Collapse all directories" onClick={() => browser.current?.setAllOpen(false)}>
              <ChevronsDownUp size={16} aria-hidden />
            </button>
            <button type="button" className="icon-btn" aria-label="Expand all" title="Expand every scope and directory" onClick={() => browser.current?.setAllOpen(true)}>
              <ChevronsUpDown size={16} aria-hidden />
            </button>
            <button type="button" className="icon-btn" aria-label="What agents receive" title="What agents receive: the memory index and the hot set, with their budgets" onClick={() => setPreviewing(true)}>
              <Eye size={16} aria-hidden />
            </button>
            <button
              type="button"
              className="btn"
              aria-pressed={inboxOpen}
              aria-label={inboxCount > 0 ? `Inbox, ${inboxCount} to review` : 'Inbox'}
              title="Memories proposed from agents' sessions, waiting for your review"
              onClick={openInbox}
            >
              <Inbox size={14} aria-hidden /> Inbox
              {inboxCount > 0 && (
                <span className="count-pill" aria-hidden>
                  {inboxCount}
                </span>
              )}
            </button>
            <button type="button" className="btn" onClick={() => setCreating(true)} disabled={availableScopes.length === 0}>
              <Plus size={14} aria-hidden /> New memory
            </button>
          </div>
        </header>
        <MemoryBrowser
          ref={browser}
          workspaceId={workspaceId}
          {...(scopes ? { scopes } : {})}
          selectedPath={openPath}
          onOpen={(f) => go(f.path)}
          onDeleted={(p) => {
            if (openPath && (openPath === p || openPath.startsWith(`${p}/`))) {
              dirtyRef.current = false;
              setOpenPath(null);
            }
          }}
          unsavedPath={() => (dirtyRef.current ? openPath : null)}
          onOpenPath={go}
          onRenamed={(from, to) => {
            if (openPath === from) setOpenPath(to);
            else if (openPath?.startsWith(`${from}/`)) setOpenPath(to + openPath.slice(from.length));
          }}
          label={`${title}: memory`}
          onConsolidate={consolidate}
          onQuery={onQuery}
        />
        {workspaceId !== null && <AgentFilesSection workspaceId={workspaceId} query={query.text} contentMode={query.content} selectedId={openAgentId} onOpen={(id) => go(agentOpenKey(id))} onOpenInbox={openInbox} />}
        <PaneSplitter tree={treeColumn} width={treeWidth} onWidth={setTreeWidth} />
      </div>
      <div className="pane-right">
        {sweeping ? (
          <SweepPanel key={sweeping} workspaceId={workspaceId} scope={sweeping} fileCount={files ? files.filter((f) => f.scope === sweeping).length : null} onClose={() => setSweeping(null)} />
        ) : inboxOpen ? (
          <InboxPanel workspaceId={workspaceId} onOpenFile={(p) => go(p)} onClose={() => setInboxOpen(false)} />
        ) : openPath ? (
          <Suspense
            fallback={
              <div className="state" role="status">
                Opening…
              </div>
            }
          >
          {openAgentId !== null && workspaceId !== null ? (
            <AgentFileEditor
              key={`${workspaceId}:${openPath}`}
              workspaceId={workspaceId}
              id={openAgentId}
              dark={dark}
              previewByDefault={previewByDefault}
              onClose={() => go(null)}
              onDirtyChange={onDirtyChange}
              onOpenInbox={openInbox}
            />
          ) : (
          <FileEditor
            key={`${workspaceId}:${openPath}`}
            workspaceId={workspaceId}
            path={openPath}
            file={openFile}
            dark={dark}
            previewByDefault={previewByDefault}
            onClose={() => go(null)}
            onDirtyChange={onDirtyChange}
            onPin={(f, p) => void onPin(f, p)}
          />
          )}
          </Suspense>
        ) : empty ? (
          <FirstRun workspaceId={workspaceId} />
        ) : (
          <div className="placeholder">
            <FileText size={28} aria-hidden />
            <p>Select a memory to read or edit it.</p>
            <p className="muted">
              <kbd>/</kbd> filter · <kbd>↑</kbd>
              <kbd>↓</kbd> move · <kbd>Enter</kbd> open · <kbd>F2</kbd> rename · <kbd>Del</kbd> delete
            </p>
          </div>
        )}
      </div>
      {previewing && <ContextPreview workspaceId={workspaceId} listVersion={list.dataUpdatedAt} onClose={() => setPreviewing(false)} />}
      {creating && (
        <NewMemoryDialog
          workspaceId={workspaceId}
          scopes={availableScopes}
          onClose={() => setCreating(false)}
          onCreated={(p) => {
            setCreating(false);
            void queryClient.invalidateQueries({ queryKey: listOptions.queryKey });
            go(p);
          }}
        />
      )}
      {pending !== undefined && (
        <ConfirmDialog
          title="Discard unsaved changes?"
          confirmLabel="Discard"
          danger
          onCancel={() => setPending(undefined)}
          onConfirm={() => {
            dirtyRef.current = false;
            if (typeof pending === 'object' && pending !== null) showSweep(pending.sweep);
            else if (pending === 'inbox') {
              setOpenPath(null);
              setInboxOpen(true);
            } else {
              setOpenPath(pending);
              if (pending !== null) setInboxOpen(false);
            }
            setPending(undefined);
          }}
        >
          <p>Your edits to {openPath ? openKeyText(openPath) : ''} are not saved. They are lost if you go on.</p>
        </ConfirmDialog>
      )}
    </div>
  );
}
