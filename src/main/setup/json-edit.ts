/**
 * Edits of an agent's JSON configuration that change only Cairn's part of the text: a member or an
 * array element is inserted, replaced or taken out, and every other byte stays as the person wrote
 * it: the layout (one line or many), the indentation (spaces or tabs), the line endings, comments
 * (JSONC) and the order of keys. jsonc-parser reads the file (its tree gives every value's offsets);
 * the edits are worked out here rather than by its `modify`, whose formatting lays out again the
 * whole line an edit touches (a one-line file entirely) and moves a comment that ends the line.
 *
 * What is inserted follows the container it goes into: on their own lines at its children's
 * indentation when it spans lines, on the same line (its spacing after `:` and `,`) when it does
 * not. An insertion and the removal of what it inserted are exact inverses, except that an empty
 * container's inside (`{}` or `{ }`) is not known once filled: the caller says what it was.
 */
import { getNodeValue, type Node } from 'jsonc-parser';
import { parseJsonTree } from '../../common/json/json-problem';
import { SetupError } from './config-file';

export type JsonKey = string | number;

/** A file's text and its tree (null for an empty file). */
export interface JsonText {
  readonly text: string;
  readonly root: Node | null;
}

/**
 * Reads a JSON (or JSONC: comments are kept, never needed) config whose top level must be an
 * object. A file that does not parse is refused with its line and column; an empty file (only
 * whitespace) has no tree. A byte order mark is kept.
 */
export function readJson(text: string, file: string): JsonText {
  if (text.replace(/^\uFEFF/, '').trim() === '') return { text, root: null };
  const { root, problem } = parseJsonTree(text, { comments: true });
  if (problem) throw new SetupError(`${file} is not valid JSON: line ${problem.line}, column ${problem.column}: ${problem.what}. Fix it (or move it away) and run this again; it was left untouched.`);
  if (!root || root.type !== 'object') throw new SetupError(`${file} must hold a JSON object at the top level; it was left untouched.`);
  return { text, root };
}

/** Whether the file has comments (JSONC), which some agents refuse. */
export function hasComments(text: string): boolean {
  return /\/\/|\/\*/.test(text.replace(/"(?:[^"\\]|\\.)*"/g, '""'));
}

/** The node at `path` (a member's value, an element), or null. */
export function nodeAt(root: Node | null, path: readonly JsonKey[]): Node | null {
  let node = root;
  for (const key of path) {
    if (!node?.children) return null;
    if (typeof key === 'number') {
      node = node.type === 'array' ? (node.children[key] ?? null) : null;
    } else {
      if (node.type !== 'object') return null;
      const member = node.children.find((p) => p.children?.[0]?.value === key);
      node = member?.children?.[1] ?? null;
    }
  }
  return node;
}

export function valueOf(node: Node): unknown {
  return getNodeValue(node) as unknown;
}

/** The file's own layout: line ending, indentation unit, spacing around `:`. */
interface Layout {
  readonly eol: string;
  readonly unit: string;
  readonly colon: string;
}

function layoutOf(doc: JsonText): Layout {
  const { text } = doc;
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  const indented = /\n([ \t]+)\S/.exec(text)?.[1];
  const unit = indented === undefined ? '  ' : indented.startsWith('\t') ? '\t' : indented;
  let colon = ': ';
  const member = firstMember(doc.root);
  if (member?.children?.length === 2) {
    const between = text.slice(member.children[0]!.offset + member.children[0]!.length, member.children[1]!.offset);
    if (/^[ \t]*:[ \t]*$/.test(between)) colon = between;
  }
  return { eol, unit, colon };
}

function firstMember(node: Node | null | undefined): Node | null {
  if (!node?.children) return null;
  if (node.type === 'property') return node;
  for (const child of node.children) {
    const found = firstMember(child);
    if (found) return found;
  }
  return null;
}

const end = (node: Node) => node.offset + node.length;

function lineStart(text: string, offset: number): number {
  let i = offset;
  while (i > 0 && text[i - 1] !== '\n') i--;
  return i;
}

/** The whitespace the line holding `offset` starts with. */
function lineIndent(text: string, offset: number): string {
  return /^[ \t]*/.exec(text.slice(lineStart(text, offset), offset))![0];
}

const startsLine = (text: string, offset: number) => text.slice(lineStart(text, offset), offset).trim() === '';

/** A member's node as the container lists it (the property for an object, the value for an array). */
function itemOf(node: Node): Node {
  return node.parent?.type === 'property' ? node.parent : node;
}

function containerOf(item: Node): Node {
  return item.parent!;
}

/** What lies between two items: whether it holds comments, and where its comma is. */
function gapOf(text: string, from: number, to: number): { comma: number; comments: boolean } {
  let comma = -1;
  let comments = false;
  for (let i = from; i < to; i++) {
    const c = text[i];
    if (c === ',') comma = i;
    else if (c === '/' && text[i + 1] === '/') {
      comments = true;
      while (i < to && text[i] !== '\n') i++;
    } else if (c === '/' && text[i + 1] === '*') {
      comments = true;
      const close = text.indexOf('*/', i + 2);
      i = close === -1 ? to : close + 1;
    }
  }
  return { comma, comments };
}

/** Whether a container is laid out over several lines; an empty one is laid out as its parent. */
function spansLines(text: string, container: Node): boolean {
  if (text.slice(container.offset, end(container)).includes('\n')) return true;
  if (container.children && container.children.length > 0) return false;
  let up = container.parent;
  while (up && up.type !== 'object' && up.type !== 'array') up = up.parent;
  return up ? spansLines(text, up) : true;
}

/**
 * On one line: the space inside `{ }` the file uses, after `,` in what Cairn writes (`sep`), and
 * after the `,` that joins Cairn's item to the container's (`join`: as between its own items).
 */
function inlineSpacing(text: string, container: Node, layout: Layout): { pad: string; sep: string; join: string } {
  let pad = '';
  for (let node: Node | undefined = container; node; node = node.parent) {
    if (node.type !== 'object' || !node.children?.length) continue;
    const inside = text.slice(node.offset + 1, node.children[0]!.offset);
    if (/^[ \t]*$/.test(inside)) {
      pad = inside;
      break;
    }
  }
  const sep = layout.colon.endsWith(' ') || pad !== '' ? ' ' : '';
  let join = sep;
  const kids = container.children ?? [];
  if (kids.length >= 2) {
    const after = /^[ \t]*,([ \t]*)$/.exec(text.slice(end(kids[0]!), kids[1]!.offset));
    if (after) join = after[1]!;
  }
  return { pad, sep, join };
}

interface Render {
  readonly layout: Layout;
  /** Over several lines (at `indent`), or on one line with `pad`/`sep`. */
  readonly multi: boolean;
  readonly pad: string;
  readonly sep: string;
}

function render(value: unknown, indent: string, r: Render): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  const isArray = Array.isArray(value);
  const entries: Array<[string | null, unknown]> = isArray ? value.map((v) => [null, v]) : Object.entries(value);
  const [open, close] = isArray ? ['[', ']'] : ['{', '}'];
  if (entries.length === 0) return `${open}${close}`;
  const inner = indent + r.layout.unit;
  const one = ([k, v]: [string | null, unknown], at: string) => `${k === null ? '' : `${JSON.stringify(k)}${r.layout.colon}`}${render(v, at, r)}`;
  if (r.multi) return `${open}${r.layout.eol}${entries.map((e) => `${inner}${one(e, inner)}`).join(`,${r.layout.eol}`)}${r.layout.eol}${indent}${close}`;
  const pad = isArray ? '' : r.pad;
  return `${open}${pad}${entries.map((e) => one(e, indent)).join(`,${r.sep}`)}${pad}${close}`;
}

/** The text of one item: `"key": value` for an object, the value for an array. */
function itemText(key: string | null, value: unknown, indent: string, r: Render): string {
  return `${key === null ? '' : `${JSON.stringify(key)}${r.layout.colon}`}${render(value, indent, r)}`;
}

interface Splice {
  readonly offset: number;
  readonly length: number;
  readonly content: string;
}

function apply(text: string, splices: Splice[]): string {
  let out = text;
  for (const s of [...splices].sort((a, b) => b.offset - a.offset)) out = out.slice(0, s.offset) + s.content + out.slice(s.offset + s.length);
  return out;
}

/** A whole new file holding `value` (an object), laid out as JSON.stringify(…, 2) would, in the text's line ending. */
function wholeFile(doc: JsonText, value: unknown): string {
  const layout = layoutOf(doc);
  const bom = doc.text.startsWith('\uFEFF') ? '\uFEFF' : '';
  return `${bom}${render(value, '', { layout, multi: true, pad: ' ', sep: ' ' })}${layout.eol}`;
}

/** Adds an item at the end of `container` (an object when `key` is a string, else an array). */
function insertItem(doc: JsonText, container: Node, key: string | null, value: unknown): string {
  const { text } = doc;
  const layout = layoutOf(doc);
  const multi = spansLines(text, container);
  const { pad, sep, join } = inlineSpacing(text, container, layout);
  const kids = container.children ?? [];
  const closeIndent = lineIndent(text, container.offset);
  if (kids.length > 0) {
    const last = kids[kids.length - 1]!;
    if (!multi) return apply(text, [{ offset: end(last), length: 0, content: `,${join}${itemText(key, value, '', { layout, multi, pad, sep })}` }]);
    const first = kids[0]!;
    const indent = startsLine(text, first.offset) ? lineIndent(text, first.offset) : closeIndent + layout.unit;
    const item = itemText(key, value, indent, { layout, multi, pad, sep });
    // A comment ending the last item's line stays with it: the item goes after the comment.
    const rest = /^[ \t]*\/\/[^\r\n]*/.exec(text.slice(end(last)));
    if (rest) {
      return apply(text, [
        { offset: end(last), length: 0, content: ',' },
        { offset: end(last) + rest[0].length, length: 0, content: `${layout.eol}${indent}${item}` },
      ]);
    }
    return apply(text, [{ offset: end(last), length: 0, content: `,${layout.eol}${indent}${item}` }]);
  }
  const open = container.offset + 1;
  const close = end(container) - 1;
  const inside = text.slice(open, close);
  const indent = closeIndent + layout.unit;
  if (inside.trim() === '') {
    const item = itemText(key, value, multi ? indent : '', { layout, multi, pad, sep });
    const content = multi ? `${layout.eol}${indent}${item}${layout.eol}${closeIndent}` : `${pad}${item}${pad}`;
    return apply(text, [{ offset: open, length: close - open, content }]);
  }
  // Comments inside an empty container stay before the item, on their line when they have one.
  const lines = inside.includes('\n');
  const item = itemText(key, value, lines ? indent : '', { layout, multi: lines, pad, sep });
  const trailing = /\s*$/.exec(inside)![0].length;
  return apply(text, [{ offset: close - trailing, length: 0, content: lines ? `${layout.eol}${indent}${item}` : ` ${item}` }]);
}

/**
 * Sets the member at `path` (object keys) to `value`: replaced where it is, or inserted with the
 * containers it needs. A container on the way that is not an object is refused.
 */
export function setMember(doc: JsonText, path: readonly string[], value: unknown, file: string): string {
  if (doc.root === null) return wholeFile(doc, nest(path, value));
  let container = doc.root;
  for (let i = 0; i < path.length; i++) {
    const child = nodeAt(container, [path[i]!]);
    if (!child) return insertItem(doc, container, path[i]!, nest(path.slice(i + 1), value));
    if (i === path.length - 1) return replaceNode(doc, child, value);
    if (child.type !== 'object') throw new SetupError(`${file}: "${path.slice(0, i + 1).join('.')}" is not an object; it was left untouched.`);
    container = child;
  }
  throw new Error('setMember needs a path');
}

function nest(path: readonly string[], value: unknown): unknown {
  return path.reduceRight<unknown>((v, k) => ({ [k]: v }), value);
}

/** Appends `value` to the array at `path`, made (with what leads to it) when missing. */
export function appendElement(doc: JsonText, path: readonly string[], value: unknown, file: string): string {
  const array = nodeAt(doc.root, path);
  if (!array) return setMember(doc, path, [value], file);
  if (array.type !== 'array') throw new SetupError(`${file}: "${path.join('.')}" is not an array; it was left untouched.`);
  return insertItem(doc, array, null, value);
}

/** Replaces a value where it stands, laid out as what it replaces (over lines when that was). */
export function replaceNode(doc: JsonText, node: Node, value: unknown): string {
  const { text } = doc;
  const layout = layoutOf(doc);
  const container = node.type === 'object' || node.type === 'array' ? node : containerOf(itemOf(node));
  const multi = node.type === 'object' || node.type === 'array' ? spansLines(text, node) : false;
  const { pad, sep } = inlineSpacing(text, container, layout);
  return apply(text, [{ offset: node.offset, length: node.length, content: render(value, lineIndent(text, node.offset), { layout, multi, pad, sep }) }]);
}

/**
 * Takes out the item holding `node` (a member's value: the whole member goes; an array element),
 * with the comma and whitespace its insertion brought, comments kept. When it was the only item,
 * the container's inside becomes `emptied` (what it was before the item came, '' when unknown).
 */
export function removeItem(doc: JsonText, node: Node, emptied = ''): string {
  const { text } = doc;
  const item = itemOf(node);
  const container = containerOf(item);
  const kids = container.children!;
  const index = kids.indexOf(item);
  // From the line break before the item when it starts a line, else from the blanks before it.
  const ownLine = (): number => {
    let start = item.offset;
    while (start > 0 && (text[start - 1] === ' ' || text[start - 1] === '\t')) start--;
    if (start > 0 && text[start - 1] === '\n') start -= text[start - 2] === '\r' ? 2 : 1;
    return start;
  };
  const next = kids[index + 1];
  if (index > 0) {
    const prev = kids[index - 1]!;
    const before = gapOf(text, end(prev), item.offset);
    if (!before.comments) return apply(text, [{ offset: end(prev), length: end(item) - end(prev), content: '' }]);
    // A comment before it stays, and so does the comma before it when an item follows.
    if (next) {
      const after = gapOf(text, end(item), next.offset);
      return apply(text, after.comments ? [{ offset: ownLine(), length: after.comma + 1 - ownLine(), content: '' }] : [{ offset: item.offset, length: next.offset - item.offset, content: '' }]);
    }
    return apply(text, [
      { offset: before.comma, length: 1, content: '' },
      { offset: ownLine(), length: end(item) - ownLine(), content: '' },
    ]);
  }
  if (next) {
    const after = gapOf(text, end(item), next.offset);
    return apply(text, [{ offset: item.offset, length: (after.comments ? after.comma + 1 : next.offset) - item.offset, content: '' }]);
  }
  const open = container.offset + 1;
  const close = end(container) - 1;
  if (text.slice(open, item.offset).trim() === '' && text.slice(end(item), close).trim() === '') {
    return apply(text, [{ offset: open, length: close - open, content: emptied }]);
  }
  return apply(text, [{ offset: ownLine(), length: end(item) - ownLine(), content: '' }]);
}

/** Whether the container at `node` holds nothing, not even a comment. */
export function isBare(doc: JsonText, node: Node): boolean {
  return (node.type === 'object' || node.type === 'array') && (node.children?.length ?? 0) === 0 && doc.text.slice(node.offset + 1, end(node) - 1).trim() === '';
}

/** The inside of the empty container at `path` in a file as it was before (`{ }` gives ' '), or null. */
export function emptyInside(doc: JsonText | null, path: readonly JsonKey[]): string | null {
  if (!doc?.root) return null;
  const node = path.length === 0 ? doc.root : nodeAt(doc.root, path);
  return node && isBare(doc, node) ? doc.text.slice(node.offset + 1, end(node) - 1) : null;
}
