/**
 * The renderer's entry. Until the curation UI lands, a plain page: the workspaces and every memory
 * file of the first one, kept up to date from the change stream. Memory content is untrusted:
 * everything is rendered as text (textContent), never as HTML.
 */
import { connect, type ApiClient } from './api/client';

const root = document.getElementById('root')!;

function el<K extends keyof HTMLElementTagNameMap>(tag: K, text?: string, className?: string): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  if (text !== undefined) node.textContent = text;
  if (className) node.className = className;
  return node;
}

async function render(client: ApiClient, workspaceId: string | null, list: HTMLElement): Promise<void> {
  const { files, scopes } = await client.memory.list({ workspaceId });
  list.replaceChildren();
  for (const scope of scopes) {
    const section = el('section');
    const inScope = files.filter((f) => f.scope === scope.scope);
    section.append(el('h2', `${scope.scope.toUpperCase()} ${scope.available ? `(${inScope.length})` : ''}`));
    if (!scope.available) section.append(el('p', `Unavailable: ${scope.reason ?? ''}`, 'muted'));
    else if (inScope.length === 0) section.append(el('p', 'No memories yet.', 'muted'));
    const ul = el('ul');
    for (const f of inScope) {
      const li = el('li');
      li.append(el('span', f.path, 'path'));
      if (f.pinned) li.append(el('span', ' · pinned', 'muted'));
      if (f.accessCount > 0) li.append(el('span', ` · used ${f.accessCount}×`, 'muted'));
      if (f.flags.length > 0) li.append(el('span', ` · flagged: ${f.flags.map((x) => x.rule).join(', ')}`, 'warn'));
      if (f.description) li.append(el('div', f.description, 'muted'));
      ul.append(li);
    }
    section.append(ul);
    list.append(section);
  }
}

async function start(): Promise<void> {
  root.replaceChildren(el('h1', 'Cairn'), el('p', 'Connecting…', 'muted'));
  const client = await connect();
  const workspaces = await client.workspaces.list();
  const workspaceId = workspaces[0]?.id ?? null;
  const heading = workspaces[0] ? `Workspace: ${workspaces[0].name}` : 'Global memory (no workspace registered yet)';
  const list = el('div');
  root.replaceChildren(el('h1', 'Cairn'), el('p', heading, 'muted'), list);
  // Loaded when the stream says the server is listening, so no change falls in between.
  for await (const _item of await client.memory.onChange({ workspaceId })) await render(client, workspaceId, list);
}

start().catch((err: unknown) => {
  root.replaceChildren(el('h1', 'Cairn'), el('p', err instanceof Error ? err.message : String(err), 'warn'));
});
