/** What the main area shows: one workspace's memory, or Settings (global memory, appearance). */
export type View = { kind: 'workspace'; workspaceId: string } | { kind: 'settings' };

const KEY = 'cairn.view';

export function loadView(): View | null {
  try {
    const v = JSON.parse(localStorage.getItem(KEY) ?? 'null') as View | null;
    if (v && (v.kind === 'settings' || (v.kind === 'workspace' && typeof v.workspaceId === 'string'))) return v;
  } catch {}
  return null;
}

export function saveView(view: View): void {
  try {
    localStorage.setItem(KEY, JSON.stringify(view));
  } catch {}
}
