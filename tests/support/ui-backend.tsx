/**
 * Component tests of the renderer against the real backend, in-process: a sandbox home, the host's
 * services (memory service, journal, change feed, usage, registry) and the oRPC router called
 * directly (no transport), wrapped in the same providers the app's entry uses. Agents' writes go
 * through the same MemoryService with actor `agent` (or, in another process, the built CLI), so
 * badges and conflicts arrive the way they do in the app.
 *
 * Lives under tests/ because the renderer may not import src/main.
 */
import * as path from 'node:path';
import { createRouterClient, type RouterClient } from '@orpc/server';
import { QueryClientProvider } from '@tanstack/react-query';
import { EditorView } from '@codemirror/view';
import { act, cleanup, configure, render, screen, type RenderResult } from '@testing-library/react';
import type { ReactElement } from 'react';
import { onTestFinished } from 'vitest';
import type { Scope } from '../../src/common/memory/constants';
import { memoryIdentity } from '../../src/common/memory/identity';
import { openAppHost, type AppHost } from '../../src/main/host/app-host';
import { router, type AppRouter } from '../../src/main/api/router';
import type { MemorySession } from '../../src/main/memory/memory-service';
import { ApiProvider, makeApi, makeQueryClient } from '../../src/renderer/api/api-context';
import { MemoryPane, type MemoryPaneProps } from '../../src/renderer/app/MemoryPane';
// The app loads the editor (CodeMirror) as its own chunk when a file is first opened; here that is
// a transform of CodeMirror on a busy machine, seconds long. Loaded up front, so opening is quick.
import '../../src/renderer/features/editor/FileEditor';
import { badgeKey, badgeStore } from '../../src/renderer/features/changes/badge-store';
import { runCairn } from './cli';
import { makeSandbox, requireBuiltCli, type Sandbox } from './sandbox';

/**
 * happy-dom does no layout: every element's clientWidth, clientHeight and scrollHeight are 0, and
 * the virtualized tree (which reads its scroll element's client size, overriding its initialRect,
 * and clamps scrolling to scrollHeight - clientHeight) would render no rows and never scroll. Give
 * the tree's scroller what a browser gives it in the app: a window's size, and its content's height
 * (the inner element's inline height) as scrollHeight. Nothing else changes.
 */
export const TREE_VIEWPORT = { width: 600, height: 800 };
function layout(prop: 'clientWidth' | 'clientHeight' | 'scrollHeight', size: (tree: HTMLElement) => number): void {
  const base = Object.getOwnPropertyDescriptor(Element.prototype, prop) ?? Object.getOwnPropertyDescriptor(HTMLElement.prototype, prop);
  Object.defineProperty(HTMLElement.prototype, prop, {
    configurable: true,
    get(this: HTMLElement) {
      if (this.getAttribute('role') === 'tree') return size(this);
      return (base?.get?.call(this) as number | undefined) ?? 0;
    },
  });
}
layout('clientWidth', () => TREE_VIEWPORT.width);
layout('clientHeight', () => TREE_VIEWPORT.height);
layout('scrollHeight', (tree) => Math.max(TREE_VIEWPORT.height, parseFloat((tree.firstElementChild as HTMLElement | null)?.style.height ?? '') || 0));

/**
 * findBy and waitFor give up after 15 s, not 1 s: on a loaded 2-core machine a change can take
 * seconds to cross the journal, the feed and a list refetch. A passing wait returns as soon as it passes.
 */
configure({ asyncUtilTimeout: 15_000 });

/** Nor does it tell anyone about scrolling: a browser fires `scroll` after a scroll; so does the tree here. */
const scrollTo = Element.prototype.scrollTo;
Element.prototype.scrollTo = function (this: Element, ...args: Parameters<Element['scrollTo']>) {
  scrollTo.apply(this, args);
  if (this.getAttribute('role') === 'tree') setTimeout(() => this.dispatchEvent(new Event('scroll')), 0);
} as Element['scrollTo'];

export interface UiBackend {
  readonly sb: Sandbox;
  readonly host: AppHost;
  readonly client: RouterClient<AppRouter>;
  /** The sandbox's checkout, registered as a workspace (null: none is registered). */
  readonly workspaceId: string | null;
  readonly session: MemorySession;
  /** Runs a memory command as an agent in this process (as the MCP server in the app does). */
  agent(command: Record<string, unknown>): Promise<string>;
  /** Runs a memory command as an agent in another process: the built `cairn tool`. */
  agentProcess(command: Record<string, unknown>): Promise<string>;
  /** Creates a file as the person would (actor `user`), through the API. */
  write(path: string, content: string): Promise<void>;
  /** Records `count` uses of a file at `at` (what agents' views leave in the usage sidecar). */
  recordUses(path: string, count: number, at: Date): Promise<void>;
}

export interface Rendered extends UiBackend {
  readonly view: RenderResult;
}

function segmentsOf(path: string): { scope: Scope; segments: string[] } {
  const [, , scope, ...segments] = path.split('/');
  return { scope: scope as Scope, segments };
}

/**
 * A sandbox and its host, torn down when the current test finishes. The sandbox's checkout is
 * registered as a workspace unless `workspace: false` (a first start: Settings and global memory);
 * agents then work in that checkout all the same. With `git: false` the folder is no git checkout
 * (no project scope).
 */
export async function makeBackend(options: { workspace?: boolean; git?: boolean } = {}): Promise<UiBackend> {
  const sb = await makeSandbox(options.git === false ? { git: false } : {});
  // The other agents' files the pane lists come from an empty user home beside the sandbox's, never this machine's user's.
  const host = openAppHost(sb.home, { userHome: path.join(path.dirname(sb.home), 'user-home') });
  const client = createRouterClient(router, { context: host });
  const workspaceId = options.workspace === false ? null : (await client.workspaces.add({ name: 'Widgets', path: sb.checkout })).id;
  const session = workspaceId === null ? sb.session : await host.registry.session(workspaceId);
  onTestFinished(async () => {
    // Unmount first: the open change streams end before the feed closes.
    cleanup();
    badgeStore.forget(badgeKey(workspaceId, 'global', '/memories/global'));
    badgeStore.forget(badgeKey(workspaceId, 'project', '/memories'));
    badgeStore.forget(badgeKey(null, 'project', '/memories'));
    localStorage.clear();
    await host.close();
    await sb.cleanup();
  });
  const backend: UiBackend = {
    sb,
    host,
    client,
    workspaceId,
    session,
    async agent(command) {
      const result = await host.service.execute(command, session, { mode: 'exec', actor: 'agent' });
      if (!result.ok) throw new Error(result.output);
      return result.output;
    },
    async agentProcess(command) {
      await requireBuiltCli();
      const result = await runCairn(['tool', '--home', sb.home, '--cwd', sb.checkout, JSON.stringify(command)]);
      if (result.status !== 0) throw new Error(`cairn tool exited ${result.status}: ${result.stderr}${result.stdout}`);
      return result.stdout;
    },
    async write(path, content) {
      const result = await client.memory.save({ workspaceId, path, content, expectedSha256: null });
      if (result.status !== 'ok') throw new Error(`could not write ${path}: ${JSON.stringify(result)}`);
    },
    async recordUses(path, count, at) {
      const { scope, segments } = segmentsOf(path);
      const id = memoryIdentity(scope, session, segments);
      if (id === null) throw new Error(`no identity for ${path}`);
      for (let i = 0; i < count; i++) host.usage.record({ type: 'use', id, at: at.toISOString(), write: false });
      await host.usage.flush();
    },
  };
  return backend;
}

/** Renders `ui` inside the app's providers, talking to `backend` (a new one unless given). */
export async function renderWithBackend(ui: ReactElement | ((b: UiBackend) => ReactElement), given?: UiBackend): Promise<Rendered> {
  const backend = given ?? (await makeBackend());
  const api = makeApi(backend.client);
  const view = render(
    <QueryClientProvider client={makeQueryClient()}>
      <ApiProvider api={api}>{typeof ui === 'function' ? ui(backend) : ui}</ApiProvider>
    </QueryClientProvider>,
  );
  return { ...backend, view };
}

/** The CodeMirror view of the open editor (typing goes through its API: happy-dom has no layout for real key input). */
export function editorView(): EditorView {
  const el = document.querySelector<HTMLElement>('.cm-editor');
  const view = el && EditorView.findFromDOM(el);
  if (!view) throw new Error('no CodeMirror editor is shown');
  return view;
}

/** Replaces the whole document of the open editor, as a person selecting all and typing would. */
export function typeInEditor(text: string): void {
  const view = editorView();
  act(() => view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: text }, userEvent: 'input.type' }));
}

/** The text in the open editor. */
export function editorText(): string {
  return editorView().state.doc.toString();
}

/** One workspace's memory pane (tree and editor), as the app shows it, with `backend`'s workspace. */
export async function renderPane(given?: UiBackend, props: Partial<MemoryPaneProps> = {}): Promise<Rendered & { dirtyRef: { current: boolean } }> {
  const backend = given ?? (await makeBackend());
  const dirtyRef = { current: false };
  const rendered = await renderWithBackend(
    <MemoryPane workspaceId={backend.workspaceId} title="Widgets" dark={false} previewByDefault={false} dirtyRef={dirtyRef} {...props} />,
    backend,
  );
  // Changes made from here on (by agents, outside Cairn) reach the page once its stream is live.
  await screen.findByText('Live', undefined, { timeout: 10_000 });
  return { ...rendered, dirtyRef };
}

/** The accessible names of the tree's rows, top to bottom (the rows rendered now). */
export function rowNames(): string[] {
  return screen.getAllByRole('treeitem').map((el) => el.getAttribute('aria-label') ?? '');
}
