/**
 * Side by side: the person's draft (left) against what is on disk now (right), read-only.
 * Drawn in the app's colours (the stylesheet's variables) for both themes; `dark` also turns on the
 * merge view's dark highlights, which CodeMirror picks by the theme's dark flag, not by the page:
 * without it a dark page showed light gutters and light change marks. Hidden text is drawn as the
 * editor draws it (hidden-chars.ts), so a change that only adds hidden characters is seen.
 */
import { markdown } from '@codemirror/lang-markdown';
import { MergeView } from '@codemirror/merge';
import { EditorState } from '@codemirror/state';
import { EditorView } from '@codemirror/view';
import { useEffect, useRef } from 'react';
import { showHiddenText } from './hidden-chars';

function diffTheme(dark: boolean) {
  return EditorView.theme(
    {
      '&': { color: 'var(--text)', backgroundColor: 'var(--panel)' },
      '.cm-gutters': { backgroundColor: 'var(--bg)', color: 'var(--muted)', borderRight: '1px solid var(--line)' },
      '.cm-content': { caretColor: 'var(--text)' },
    },
    { dark },
  );
}

export function DiffView({ mine, theirs, dark = false }: { mine: string; theirs: string; dark?: boolean }) {
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const extensions = [markdown(), EditorView.lineWrapping, showHiddenText(), EditorState.readOnly.of(true), EditorView.editable.of(false), diffTheme(dark)];
    const view = new MergeView({ a: { doc: mine, extensions }, b: { doc: theirs, extensions }, parent: ref.current!, highlightChanges: true, gutter: true });
    return () => view.destroy();
  }, [mine, theirs, dark]);
  return (
    <div className="diff" aria-label="Your version beside the version on disk">
      <div className="diff-heads">
        <span>Yours (not saved)</span>
        <span>On disk now</span>
      </div>
      <div ref={ref} className="diff-body" />
    </div>
  );
}
