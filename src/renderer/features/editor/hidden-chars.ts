/**
 * The editor's view of hidden text (common/memory/hidden-text.ts): each run of characters a person
 * cannot see and a model still reads (zero-width and bidirectional controls, variation selectors or
 * tag characters that spell text, ...) is drawn as one visible placeholder saying what it is, and
 * moved over and deleted as one piece, so a person sees what the scanners warn about and can
 * remove it. Ordinary emoji sequences are not hidden text and are drawn as they are.
 *
 * CodeMirror's own special-character markers are limited to controls here, so that no hidden
 * character is marked twice.
 */
import { type EditorState, type Extension, RangeSetBuilder, StateField } from '@codemirror/state';
import { Decoration, type DecorationSet, EditorView, WidgetType, highlightSpecialChars } from '@codemirror/view';
import { codePointLabel, hiddenRunWords, hiddenRuns, type HiddenRun } from '../../../common/memory/hidden-text';

/** What the placeholder reads: the code point of a single character, or the run's size and kind. */
function placeholderText(run: HiddenRun): string {
  if (run.decoded !== undefined) return `hidden text: ${hiddenRunWords(run)}`;
  return run.count === 1 ? codePointLabel(run.first) : `${run.count} hidden characters`;
}

class HiddenRunWidget extends WidgetType {
  constructor(
    readonly label: string,
    readonly words: string,
  ) {
    super();
  }

  override eq(other: HiddenRunWidget): boolean {
    return other.label === this.label && other.words === this.words;
  }

  override toDOM(): HTMLElement {
    const span = document.createElement('span');
    span.className = 'cm-hidden-text';
    span.textContent = this.label;
    span.title = `Hidden from view, read by agents: ${this.words}. Delete it to remove it.`;
    span.setAttribute('aria-label', `hidden text: ${this.words}`);
    return span;
  }

  override ignoreEvent(): boolean {
    return false;
  }
}

function decorations(state: EditorState): DecorationSet {
  const builder = new RangeSetBuilder<Decoration>();
  for (const run of hiddenRuns(state.doc.toString())) {
    builder.add(run.start, run.end, Decoration.replace({ widget: new HiddenRunWidget(placeholderText(run), hiddenRunWords(run)) }));
  }
  return builder.finish();
}

const hiddenField = StateField.define<DecorationSet>({
  create: decorations,
  update: (value, tr) => (tr.docChanged ? decorations(tr.state) : value),
  provide: (field) => [EditorView.decorations.from(field), EditorView.atomicRanges.of((view) => view.state.field(field))],
});

/** Controls only: what CodeMirror marks itself (every other hidden character is a run here). */
const CONTROLS = /[\u0000-\u0008\u000a-\u001f\u007f-\u009f\ufffc]/g;

const theme = EditorView.baseTheme({
  '.cm-hidden-text': {
    display: 'inline-block',
    padding: '0 4px',
    margin: '0 1px',
    borderRadius: '3px',
    border: '1px dashed #c2410c',
    color: '#9a3412',
    backgroundColor: '#fff7ed',
    fontFamily: 'ui-monospace, SFMono-Regular, Menlo, monospace',
    fontSize: '0.85em',
    lineHeight: '1.3',
  },
  '&dark .cm-hidden-text': {
    border: '1px dashed #fb923c',
    color: '#fdba74',
    backgroundColor: '#431407',
  },
});

/** The extension; with basicSetup, turn its highlightSpecialChars off (this one marks controls). */
export function showHiddenText(): Extension {
  return [hiddenField, highlightSpecialChars({ specialChars: CONTROLS }), theme];
}
