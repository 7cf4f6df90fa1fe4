/** Side by side: the person's draft (left) against what is on disk now (right), read-only. */
import { markdown } from '@codemirror/lang-markdown';
import { MergeView } from '@codemirror/merge';
import { EditorState } from '@codemirror/state';
import { EditorView } from '@codemirror/view';
import { useEffect, useRef } from 'react';

export function DiffView({ mine, theirs }: { mine: string; theirs: string }) {
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const extensions = [markdown(), EditorView.lineWrapping, EditorState.readOnly.of(true), EditorView.editable.of(false)];
    const view = new MergeView({ a: { doc: mine, extensions }, b: { doc: theirs, extensions }, parent: ref.current!, highlightChanges: true, gutter: true });
    return () => view.destroy();
  }, [mine, theirs]);
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
