/**
 * One view's memory: the browser (tree) on the left, the open file (or the first-run guide, or the
 * Inbox of proposed memories) on the right; a narrow window keeps both, the tree narrower, and only
 * a very narrow one shows one at a time, with a visible switch between them (narrow-switch). Switching files (or opening the Inbox) with unsaved edits asks first. `/` focuses the
 * filter. The split between the two can be dragged or moved from the keyboard (PaneSplitter);
 * Collapse all / Expand all act on the tree; "What agents receive" shows the index and hot set
 * agents get (ContextPreview).
 * Keyboard: quick open searches this view's files and the palette offers its actions
 * (features/command-palette); Escape in the editor goes back to the open file's row (the hint
 * under the editor says so); closing a file, the Inbox or a consolidation gives the focus to the
 * row or button it came from; a rename the filter hides says where the file went, with Show and Undo.
 */
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { ChevronsDownUp, ChevronsUpDown, Eye, FileText, Inbox, ListTree, Plus } from 'lucide-react';
import { SCOPES } from '../../common/memory/constants';
import { lazy, Suspense, useCallback, useEffect, useRef, useState } from 'react';
import type { Scope } from '../../common/memory/constants';
import { useApi } from '../api/api-context';
import { agentIdOf, agentOpenKey, openKeyText } from '../features/agent-files/agent-files-model';
import { AgentFilesSection } from '../features/agent-files/AgentFilesSection';
import { ContextPreview } from '../features/context-preview/ContextPreview';
import { PALETTE_SHORTCUT, QUICK_OPEN_SHORTCUT } from '../features/command-palette/CommandPalette';
import { useQuickOpenSource, useRegisterCommands } from '../features/command-palette/registry';
import { ConfirmDialog } from '../features/dialogs/Dialog';
import { focusWhenShown, treeRowElement } from '../features/dialogs/focus';
import { Toast } from '../features/history/Toast';
import { InboxPanel } from '../features/inbox/InboxPanel';
import { ConsolidationPanel } from '../features/consolidation/ConsolidationPanel';
import { useInbox } from '../features/inbox/use-inbox';
import { FirstRun } from '../features/onboarding/FirstRun';
import { MemoryBrowser, type MemoryBrowserHandle } from '../features/tree/MemoryBrowser';
import { NewMemoryDialog } from '../features/tree/NewMemoryDialog';
import { fileMatches, filterTerms, scopeRowId } from '../features/tree/tree-model';
import { usePin } from '../features/tree/use-pin';
import { announce } from './announcer';
import { PaneSplitter, useTreeWidth } from './PaneSplitter';

// The editor (CodeMirror and its diff) loads when a file is first opened, not with the tree.
const FileEditor = lazy(() => import('../features/editor/FileEditor').then((m) => ({ default: m.FileEditor })));
// Another agent's file opens in the same editor, with that file as its source.
const AgentFileEditor = lazy(() => import('../features/agent-files/AgentFileEditor').then((m) => ({ default: m.AgentFileEditor })));

/**
 * The pane's icons, built once: the pane is drawn again when its list arrives (and at each change),
 * and an element that is the very same object is not drawn again.
 */
const ICONS = {
  backToFile: <FileText size={14} aria-hidden />,
  collapse: <ChevronsDownUp size={16} aria-hidden />,
  expand: <ChevronsUpDown size={16} aria-hidden />,
  preview: <Eye size={16} aria-hidden />,
  inbox: <Inbox size={14} aria-hidden />,
  newMemory: <Plus size={14} aria-hidden />,
  showTree: <ListTree size={14} aria-hidden />,
  placeholder: <FileText size={28} aria-hidden />,
};

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
  const { client, orpc } = useApi();
  const queryClient = useQueryClient();
  const [openPath, setOpenPath] = useState<string | null>(null);
  const [inboxOpen, setInboxOpen] = useState(false);
  // Where the person asked to go while the open file had unsaved edits: a file, nothing, or the Inbox.
  const [pending, setPending] = useState<string | null | 'inbox' | { consolidation: Scope } | undefined>(undefined);
  // The scope whose consolidation shows on the right, if any.
  const [consolidating, setConsolidating] = useState<Scope | null>(null);
  const inbox = useInbox(workspaceId);
  // A damaged inbox file counts too: the person has to look at it.
  const inboxCount = (inbox.items?.length ?? 0) + inbox.damaged.length;
  // New proposals (a harvest, an agent's) are said politely; the first count read is not news.
  const lastInboxCount = useRef<number | null>(null);
  useEffect(() => {
    if (inbox.items === undefined) return;
    const before = lastInboxCount.current;
    lastInboxCount.current = inboxCount;
    if (before !== null && inboxCount > before) announce(`${inboxCount - before === 1 ? '1 new memory' : `${inboxCount - before} new memories`} to review in the Inbox.`);
  }, [inbox.items, inboxCount]);
  const [creating, setCreating] = useState(false);
  /** The new memory open in the editor, not on disk until its first Save (FileEditor's newFileText). */
  const [newFile, setNewFile] = useState<{ path: string; text: string } | null>(null);
  // Another file opened, the editor closed, or opening it given up (unsaved edits kept): the path
  // is an ordinary file again, read from disk when it is opened next.
  useEffect(() => {
    if (newFile && openPath !== newFile.path && pending === undefined) setNewFile(null);
  }, [openPath, newFile, pending]);
  const [previewing, setPreviewing] = useState(false);
  const browser = useRef<MemoryBrowserHandle>(null);
  const treeColumn = useRef<HTMLDivElement>(null);
  const [treeWidth, setTreeWidth] = useTreeWidth();
  /** On a very narrow window: the tree shown in place of the open file (the switch's state). */
  const [treeShown, setTreeShown] = useState(false);
  const listOptions = orpc.memory.list.queryOptions({ input: { workspaceId } });
  // The browser loads the list; this only reads what it holds.
  const list = useQuery({ ...listOptions, enabled: false });
  // The filter box's text and mode: other agents' files below the tree follow it.
  const [query, setQuery] = useState({ text: '', content: false });
  const onQuery = useCallback((text: string, content: boolean) => setQuery({ text, content }), []);
  const openAgentId = agentIdOf(openPath);
  const inboxButton = useRef<HTMLButtonElement>(null);
  /** After a rename the filter hides: where the file went (Show, Undo). */
  const [hiddenRename, setHiddenRename] = useState<{ key: number; from: string; to: string } | null>(null);

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
        setTreeShown(false);
        if (path !== null) {
          setInboxOpen(false);
          setConsolidating(null);
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
    setConsolidating(null);
    setInboxOpen(true);
  };

  const showConsolidation = (scope: Scope) => {
    setOpenPath(null);
    setInboxOpen(false);
    setConsolidating(scope);
  };

  const consolidate = (scope: Scope) => {
    if (dirtyRef.current && openPath) setPending({ consolidation: scope });
    else showConsolidation(scope);
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

  /** Focuses a tree row once it is drawn (after the list is read again, the pane laid out anew). */
  const focusRow = (id: string) => focusWhenShown(() => treeRowElement(id), 2000);
  /** Closes the open file and gives the focus to its row. */
  const closeFile = () => {
    const closing = openPath;
    go(null);
    if (closing && !dirtyRef.current) focusRow(closing);
  };
  /** Opens a file and puts the focus in its editor once it has loaded (quick open). */
  const openAndEdit = (path: string) => {
    go(path);
    if (!dirtyRef.current || path === openPath) focusWhenShown(() => document.querySelector<HTMLElement>(`[aria-label="${CSS.escape(`Editor: ${path}`)}"] .cm-content`));
  };
  const onRenamed = (from: string, to: string) => {
    if (openPath === from) setOpenPath(to);
    else if (openPath?.startsWith(`${from}/`)) setOpenPath(to + openPath.slice(from.length));
    // Renamed out of what the filter shows: say where it went, instead of the row just vanishing.
    const file = files?.find((f) => f.path === from);
    const terms = query.content ? [] : filterTerms(query.text);
    if (file && terms.length > 0 && !fileMatches({ ...file, path: to }, terms)) setHiddenRename({ key: Date.now(), from, to });
  };
  const undoRename = async (from: string, to: string) => {
    setHiddenRename(null);
    const result = await client.memory.rename({ workspaceId, fromPath: to, toPath: from });
    if (result.status === 'error') {
      announce(`Could not undo the rename: ${result.message}`);
      return;
    }
    onRenamed(to, from);
    await queryClient.invalidateQueries({ queryKey: listOptions.queryKey });
    focusRow(from);
  };

  useQuickOpenSource(() => ({ files: files ?? [], open: openAndEdit }));
  useRegisterCommands(() => [
    ...(availableScopes.length > 0 ? [{ id: 'pane.new', title: 'New memory…', run: () => setCreating(true) }] : []),
    { id: 'pane.inbox', title: inboxOpen ? 'Close the Inbox' : inboxCount > 0 ? `Open the Inbox (${inboxCount} to review)` : 'Open the Inbox', run: openInbox },
    { id: 'pane.filter', title: 'Filter memories', hint: '/', run: () => browser.current?.focusFilter() },
    { id: 'pane.preview', title: 'Show what agents receive', run: () => setPreviewing(true) },
    { id: 'pane.collapse', title: 'Collapse all directories', run: () => browser.current?.setAllOpen(false) },
    { id: 'pane.expand', title: 'Expand all directories', run: () => browser.current?.setAllOpen(true) },
    ...(openPath ? [{ id: 'pane.close', title: 'Close the open file', run: closeFile }] : []),
    ...(openPath && !openAgentId ? [{ id: 'pane.reveal', title: 'Show the open file in the tree', hint: 'Esc', run: () => browser.current?.reveal(openPath) }] : []),
    ...SCOPES.filter((scope) => availableScopes.includes(scope)).map((scope) => ({ id: `pane.consolidate:${scope}`, title: `Consolidate ${scope} memory…`, run: () => consolidate(scope) })),
  ]);

  /** Escape in the editor (when the editor itself did nothing with it) goes back to the open file's row. */
  const onRightKeyDown = (e: React.KeyboardEvent) => {
    if (e.key !== 'Escape' || e.defaultPrevented || !openPath || !(e.target as HTMLElement).closest('.cm-editor')) return;
    e.preventDefault();
    if (openAgentId === null) browser.current?.reveal(openPath);
    else (document.querySelector<HTMLElement>('[role="tree"] [role="treeitem"][tabindex="0"]') ?? document.querySelector<HTMLElement>('[role="tree"]'))?.focus();
  };

  return (
    <div className={`${openPath || inboxOpen || consolidating ? 'pane has-file' : 'pane'}${treeShown ? ' tree-shown' : ''}`} style={treeWidth === null ? undefined : ({ '--tree-width': `${treeWidth}px` } as React.CSSProperties)}>
      <div className="pane-left" ref={treeColumn}>
        <header className="pane-head">
          <h1>{title}</h1>
          <div className="pane-tools">
            <button type="button" className="btn narrow-switch" onClick={() => setTreeShown(false)}>
              {ICONS.backToFile} Back to the file
            </button>
            <button type="button" className="icon-btn" aria-label="Collapse all" title="Collapse all directories" onClick={() => browser.current?.setAllOpen(false)}>
              {ICONS.collapse}
            </button>
            <button type="button" className="icon-btn" aria-label="Expand all" title="Expand every scope and directory" onClick={() => browser.current?.setAllOpen(true)}>
              {ICONS.expand}
            </button>
            <button type="button" className="icon-btn" aria-label="What agents receive" title="What agents receive: the memory index and the hot set, with their budgets" onClick={() => setPreviewing(true)}>
              {ICONS.preview}
            </button>
            <button
              type="button"
              className="btn"
              aria-pressed={inboxOpen}
              aria-label={inboxCount > 0 ? `Inbox, ${inboxCount} to review` : 'Inbox'}
              title="Memories proposed from agents' sessions, waiting for your review"
              onClick={openInbox}
              ref={inboxButton}
            >
              {ICONS.inbox} Inbox{' '}
              {inboxCount > 0 && (
                <span className="count-pill" aria-hidden>
                  {inboxCount}
                </span>
              )}
            </button>
            <button type="button" className="btn" onClick={() => setCreating(true)} disabled={availableScopes.length === 0}>
              {ICONS.newMemory} New memory
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
          onRenamed={onRenamed}
          label={`${title}: memory`}
          onConsolidate={consolidate}
          onQuery={onQuery}
        />
        {workspaceId !== null && <AgentFilesSection workspaceId={workspaceId} query={query.text} contentMode={query.content} selectedId={openAgentId} onOpen={(id) => go(agentOpenKey(id))} onOpenInbox={openInbox} />}
        <PaneSplitter tree={treeColumn} width={treeWidth} onWidth={setTreeWidth} />
      </div>
      <div className="pane-right" onKeyDown={onRightKeyDown}>
        <button type="button" className="btn small narrow-switch" onClick={() => setTreeShown(true)}>
          {ICONS.showTree} Show the tree
        </button>
        {consolidating ? (
          <ConsolidationPanel key={consolidating} workspaceId={workspaceId} scope={consolidating} fileCount={files ? files.filter((f) => f.scope === consolidating).length : null} onClose={() => {
              const scope = consolidating;
              setConsolidating(null);
              focusRow(scopeRowId(scope));
            }} />
        ) : inboxOpen ? (
          <InboxPanel
            workspaceId={workspaceId}
            onOpenFile={(p) => go(p)}
            onClose={() => {
              setInboxOpen(false);
              inboxButton.current?.focus();
            }}
          />
        ) : openPath ? (
          <>
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
              onClose={closeFile}
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
            onClose={closeFile}
            onDirtyChange={onDirtyChange}
            onPin={(f, p) => void onPin(f, p)}
            {...(newFile?.path === openPath ? { newFileText: newFile.text } : {})}
          />
          )}
          </Suspense>
          <p className="editor-hint" id="editor-hint">
            <kbd>Esc</kbd> back to the tree · <kbd>{QUICK_OPEN_SHORTCUT}</kbd> go to a memory · <kbd>{PALETTE_SHORTCUT}</kbd> commands
          </p>
          </>
        ) : empty ? (
          <FirstRun workspaceId={workspaceId} />
        ) : (
          <div className="placeholder">
            {ICONS.placeholder}
            <p>Select a memory to read or edit it.</p>
            <p className="muted">
              <kbd>/</kbd> filter · <kbd>↑</kbd>
              <kbd>↓</kbd> move · <kbd>Enter</kbd> open · <kbd>F2</kbd> rename · <kbd>Del</kbd> delete
            </p>
            <p className="muted">
              <kbd>{QUICK_OPEN_SHORTCUT}</kbd> go to a memory · <kbd>{PALETTE_SHORTCUT}</kbd> commands
            </p>
          </div>
        )}
      </div>
      {hiddenRename && (
        <Toast
          key={hiddenRename.key}
          message={
            <>
              Renamed to <code>{hiddenRename.to}</code> — hidden by the filter
            </>
          }
          action={
            <>
              <button
                type="button"
                className="btn small"
                onClick={() => {
                  setHiddenRename(null);
                  browser.current?.reveal(hiddenRename.to);
                }}
              >
                Show
              </button>
              <button type="button" className="btn small" onClick={() => void undoRename(hiddenRename.from, hiddenRename.to)}>
                Undo
              </button>
            </>
          }
          durationMs={null}
          takeFocus
          onDismiss={() => {
            setHiddenRename(null);
            browser.current?.focusFilter();
          }}
        />
      )}
      {previewing && <ContextPreview workspaceId={workspaceId} listVersion={list.dataUpdatedAt} onClose={() => setPreviewing(false)} />}
      {creating && (
        <NewMemoryDialog
          scopes={availableScopes}
          exists={(p) => files?.some((f) => f.path === p) ?? false}
          onClose={() => setCreating(false)}
          onOpen={(p, text) => {
            setCreating(false);
            setNewFile({ path: p, text });
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
            if (typeof pending === 'object' && pending !== null) showConsolidation(pending.consolidation);
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
