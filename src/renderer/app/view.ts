/** What the main area shows: one workspace's memory, Settings (global memory, appearance), or the Activity of every workspace. */
export type View = { kind: 'workspace'; workspaceId: string } | { kind: 'settings' } | { kind: 'activity' };

const KEY = 'cairn.view';

export function loadView(): View | null {
  try {
    const v = JSON.parse(localStorage.getItem(KEY) ?? 'null') as View | null;
    if (v && (v.kind === 'settings' || v.kind === 'activity' || (v.kind === 'workspace' && typeof v.workspaceId === 'string'))) return v;
  } catch {
    // storage refused or the stored view damaged: start from the default view
  }
  return null;
}

export function saveView(view: View): void {
  try {
    localStorage.setItem(KEY, JSON.stringify(view));
  } catch {
    // storage refused: the view holds for this page only
  }
}
