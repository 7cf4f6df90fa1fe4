/**
 * The window: the sidebar (workspaces, Settings) and the selected view (while no workspace exists
 * and none was chosen, the welcome that asks for the first project: features/onboarding/Welcome). Owns the theme (the
 * system's unless Settings say otherwise), the guard against leaving unsaved edits (only when the
 * browser could not keep them: features/editor/use-draft.ts), and web mode's connection banner.
 * Also the window-wide keyboard and screen-reader parts: the command palette and quick open
 * (features/command-palette, with the window's own commands: switch workspace, Settings, theme),
 * the one polite live region (announcer.tsx, which says agents' edits as they arrive), and the
 * focus's safety net (when what held the focus leaves the page, or Escape is pressed with the focus
 * nowhere, it goes to the tree: features/dialogs/focus.ts).
 */
import { type QueryClient, useQuery, useQueryClient } from '@tanstack/react-query';
import { startTransition, useEffect, useRef, useState, useSyncExternalStore } from 'react';
import { type Api, useApi } from '../api/api-context';
import { ConnectionBanner } from '../api/ConnectionBanner';
import { ActivityView } from '../features/activity/ActivityView';
import { CommandPalette, QUICK_OPEN_SHORTCUT, usePaletteShortcuts } from '../features/command-palette/CommandPalette';
import { useRegisterCommands } from '../features/command-palette/registry';
import { onChangeEvent } from '../features/changes/use-change-stream';
import { ConfirmDialog } from '../features/dialogs/Dialog';
import { focusIsLost, focusSomewhereSensible } from '../features/dialogs/focus';
import { useSaveSettings } from '../features/settings/use-save-settings';
import { SettingsView } from '../features/settings/SettingsView';
import { unsavedTextIsKept } from '../features/editor/use-draft';
import { AddWorkspaceDialog } from '../features/workspaces/AddWorkspaceDialog';
import { Welcome } from '../features/onboarding/Welcome';
import { announce, Announcer } from './announcer';
import { MemoryPane } from './MemoryPane';
import { Sidebar } from './Sidebar';
import { loadView, saveView, type View } from './view';

const darkQuery = typeof matchMedia === 'function' ? matchMedia('(prefers-color-scheme: dark)') : null;

function useSystemDark(): boolean {
  return useSyncExternalStore(
    (l) => {
      darkQuery?.addEventListener('change', l);
      return () => darkQuery?.removeEventListener('change', l);
    },
    () => darkQuery?.matches ?? false,
  );
}

/**
 * What the window shows first, asked for as soon as the API is connected (before the first render):
 * the workspaces, the settings, and the memory list of the view shown last time.
 */
export function prefetchFirstView(api: Api, queryClient: QueryClient): void {
  void queryClient.prefetchQuery(api.orpc.workspaces.list.queryOptions());
  void queryClient.prefetchQuery(api.orpc.settings.get.queryOptions());
  const first = loadView();
  if (first) void queryClient.prefetchQuery(api.orpc.memory.list.queryOptions({ input: { workspaceId: first.kind === 'workspace' ? first.workspaceId : null } }));
}

/**
 * Keeps the focus somewhere: when the element that had it leaves the page (its row renamed or
 * deleted, its panel closed) or Escape is pressed while it is on <body>, it goes to the tree.
 */
function useFocusSafetyNet(): void {
  useEffect(() => {
    let holder: Element | null = null;
    const onFocusIn = (e: FocusEvent) => {
      holder = e.target instanceof Element ? e.target : null;
    };
    // Checked after each batch of changes to the page: one isConnected read, nothing per row.
    const observer = new MutationObserver(() => {
      if (holder && !holder.isConnected && focusIsLost()) {
        holder = null;
        focusSomewhereSensible();
      }
    });
    const onKey = (e: KeyboardEvent) => {
      if (e.key === 'Escape' && focusIsLost() && focusSomewhereSensible()) e.preventDefault();
    };
    document.addEventListener('focusin', onFocusIn);
    document.addEventListener('keydown', onKey);
    observer.observe(document.body, { childList: true, subtree: true });
    return () => {
      document.removeEventListener('focusin', onFocusIn);
      document.removeEventListener('keydown', onKey);
      observer.disconnect();
    };
  }, []);
}

/** Says agents' edits politely as they arrive (one sentence per burst, naming the file when it is one). */
function useAnnounceAgentEdits(): void {
  useEffect(() => {
    let paths = new Set<string>();
    let timer: ReturnType<typeof setTimeout> | null = null;
    const off = onChangeEvent((event) => {
      if (event.actor !== 'agent') return;
      paths.add(event.path);
      timer ??= setTimeout(() => {
        timer = null;
        const changed = [...paths];
        paths = new Set();
        announce(changed.length === 1 ? `An agent changed ${changed[0]}.` : `Agents changed ${changed.length} memories.`);
      }, 300);
    });
    return () => {
      off();
      if (timer) clearTimeout(timer);
    };
  }, []);
}

export function App() {
  const { orpc } = useApi();
  const workspaces = useQuery(orpc.workspaces.list.queryOptions());
  const settings = useQuery(orpc.settings.get.queryOptions());
  const systemDark = useSystemDark();
  const theme = settings.data?.theme ?? 'system';
  const dark = theme === 'dark' || (theme === 'system' && systemDark);
  const [view, setView] = useState<View | null>(loadView);
  const queryClient = useQueryClient();
  const [adding, setAdding] = useState(false);
  const [pendingView, setPendingView] = useState<View | null>(null);
  const dirtyRef = useRef(false);
  const [palette, setPalette] = useState<'files' | 'commands' | null>(null);
  const saveSettings = useSaveSettings();
  usePaletteShortcuts((mode) => setPalette((now) => (now === mode ? null : mode)));
  useFocusSafetyNet();
  useAnnounceAgentEdits();

  useEffect(() => {
    document.documentElement.dataset.theme = dark ? 'dark' : 'light';
  }, [dark]);

  useEffect(() => {
    const onBeforeUnload = (e: BeforeUnloadEvent) => {
      if (dirtyRef.current && !unsavedTextIsKept()) e.preventDefault();
    };
    window.addEventListener('beforeunload', onBeforeUnload);
    return () => window.removeEventListener('beforeunload', onBeforeUnload);
  }, []);

  // The view to show: the one chosen (while its workspace exists), else the first workspace, else Settings.
  const list = workspaces.data;
  let current: View | null = view;
  if (list && current?.kind === 'workspace') {
    const id = current.workspaceId;
    if (!list.some((w) => w.id === id)) current = null;
  }
  if (list && !current) current = list[0] ? { kind: 'workspace', workspaceId: list[0].id } : { kind: 'settings' };
  // The workspace shown is remembered even when it was not chosen (the first one), so the next
  // start asks for its list at once. (Settings only when chosen: a first workspace added later
  // should then show up by itself.)
  const shownWorkspace = current?.kind === 'workspace' ? current.workspaceId : null;
  useEffect(() => {
    if (shownWorkspace) saveView({ kind: 'workspace', workspaceId: shownWorkspace });
  }, [shownWorkspace]);

  const go = (next: View) => {
    // Ask for the view's list now, and switch views in a transition: the request leaves before
    // the old view is torn down and the new one drawn, not after.
    if (next.kind === 'workspace') void queryClient.prefetchQuery(orpc.memory.list.queryOptions({ input: { workspaceId: next.workspaceId } }));
    startTransition(() => setView(next));
    saveView(next);
  };

  const show = (next: View) => {
    if (dirtyRef.current) {
      setPendingView(next);
      return;
    }
    go(next);
  };

  // A newcomer (no workspace, and Settings or Activity not chosen) is welcomed and asked for a project first.
  const welcome = list?.length === 0 && (view === null || view.kind === 'workspace');
  const workspace = current?.kind === 'workspace' ? list?.find((w) => w.id === current.workspaceId) : undefined;
  useRegisterCommands(() => [
    { id: 'app.quick-open', title: 'Go to a memory…', hint: QUICK_OPEN_SHORTCUT, run: () => setPalette('files') },
    { id: 'app.settings', title: 'Open Settings', run: () => show({ kind: 'settings' }) },
    { id: 'app.activity', title: 'Open Activity (what agents changed)', run: () => show({ kind: 'activity' }) },
    { id: 'app.add-workspace', title: 'Add a workspace…', run: () => setAdding(true) },
    { id: 'app.theme', title: dark ? 'Switch to the light theme' : 'Switch to the dark theme', run: () => saveSettings.mutate({ theme: dark ? 'light' : 'dark' }) },
    ...(list ?? [])
      .filter((w) => !(current?.kind === 'workspace' && current.workspaceId === w.id))
      .map((w) => ({ id: `app.workspace:${w.id}`, title: `Switch to workspace ${w.name}`, run: () => show({ kind: 'workspace', workspaceId: w.id }) })),
  ]);
  return (
    <div className="app">
      <ConnectionBanner />
      <Announcer />
      <Sidebar view={current ?? { kind: 'settings' }} onView={show} onAdd={() => setAdding(true)} />
      <main className="main">
        {!current ? null : welcome ? (
          <Welcome onAdded={(id) => show({ kind: 'workspace', workspaceId: id })} onGlobalOnly={() => show({ kind: 'settings' })} />
        ) : current.kind === 'settings' ? (
          <SettingsView key="settings" dark={dark} dirtyRef={dirtyRef} />
        ) : current.kind === 'activity' ? (
          <ActivityView key="activity" />
        ) : (
          <MemoryPane key={current.workspaceId} workspaceId={current.workspaceId} title={workspace?.name ?? 'Workspace'} dark={dark} previewByDefault={settings.data?.previewByDefault ?? false} dirtyRef={dirtyRef} />
        )}
      </main>
      {adding && (
        <AddWorkspaceDialog
          onClose={() => setAdding(false)}
          onAdded={(id) => {
            setAdding(false);
            show({ kind: 'workspace', workspaceId: id });
          }}
        />
      )}
      {palette && <CommandPalette key={palette} mode={palette} onClose={() => setPalette(null)} />}
      {pendingView && (
        <ConfirmDialog
          title="Discard unsaved changes?"
          confirmLabel="Discard"
          danger
          onCancel={() => setPendingView(null)}
          onConfirm={() => {
            dirtyRef.current = false;
            go(pendingView);
            setPendingView(null);
          }}
        >
          <p>The open file has edits that are not saved. They are lost if you go on.</p>
        </ConfirmDialog>
      )}
    </div>
  );
}
