/**
 * The protocol's result texts (../shared/protocol.md), formatted exactly as the reference
 * implementation prints them, plus Cairn's own envelope errors. Pure: given names, sizes and
 * content, it returns the text a model sees. Only virtual paths ever appear here.
 */
import { LINE_NUMBER_WIDTH, MAX_FILE_BYTES, MAX_FILES_PER_SCOPE, MAX_VIEW_LINES, MEMORY_ROOT, SCOPES, type Mode, type Scope } from './constants';
import { MemoryToolError } from './errors';

/** `0B`, `34B`, `4K`, `1.4M`, as the reference sizes files and directories. */
export function formatFileSize(bytes: number): string {
  if (bytes <= 0) return '0B';
  const units = ['B', 'K', 'M', 'G'];
  const i = Math.min(Math.floor(Math.log(bytes) / Math.log(1024)), units.length - 1);
  const size = bytes / 1024 ** i;
  return (size % 1 === 0 ? size.toString() : size.toFixed(1)) + units[i];
}

function numberLine(lineNumber: number, line: string): string {
  return `${String(lineNumber).padStart(LINE_NUMBER_WIDTH, ' ')}\t${line}`;
}

/** One row of a directory view: its size and its virtual path (directories end in `/`). */
export interface ViewRow {
  size: string;
  path: string;
}

export function directoryViewText(path: string, rootSize: string, rows: readonly ViewRow[], notes: readonly string[] = []): string {
  const header = `Here're the files and directories up to 2 levels deep in ${path}, excluding hidden items and node_modules:`;
  return [header, `${rootSize}\t${path}`, ...rows.map((r) => `${r.size}\t${r.path}`), ...notes].join('\n');
}

/** A directory view's row of a folder that cannot be read (its path ends in `/`), with the reason. */
export function unreadableRowPath(path: string, code: string): string {
  return `${path} (cannot read: ${describeErrno(code)})`;
}

/** The numbered view of a file, honouring view_range exactly as the reference does. */
export function fileViewText(path: string, content: string, viewRange?: readonly [number, number]): string {
  const lines = content.split('\n');
  if (lines.length > MAX_VIEW_LINES) {
    throw new MemoryToolError(`File ${path} has too many lines (${lines.length}). Maximum is ${MAX_VIEW_LINES.toLocaleString('en-US')} lines.`);
  }
  let shown = lines;
  let start = 1;
  if (viewRange) {
    const from = Math.max(1, viewRange[0]) - 1;
    const to = viewRange[1] === -1 ? lines.length : viewRange[1];
    shown = lines.slice(from, to);
    start = from + 1;
  }
  return `Here's the content of ${path} with line numbers:\n${shown.map((l, i) => numberLine(i + start, l)).join('\n')}`;
}

export function createdText(path: string): string {
  return `File created successfully at: ${path}`;
}

/** The str_replace result: the changed region with two lines of context either side. */
export function editedSnippetText(newContent: string, firstChangedLine: number, changedLineCount: number): string {
  const lines = newContent.split('\n');
  const from = Math.max(0, firstChangedLine - 1 - 2);
  const to = Math.min(lines.length, firstChangedLine - 1 + changedLineCount + 2);
  const snippet = lines.slice(from, to).map((l, i) => numberLine(from + i + 1, l));
  return `The memory file has been edited. Here is the snippet showing the change (with line numbers):\n${snippet.join('\n')}`;
}

export function insertedText(path: string): string {
  return `The file ${path} has been edited.`;
}

export function deletedText(path: string): string {
  return `Successfully deleted ${path}`;
}

export function renamedText(from: string, to: string): string {
  return `Successfully renamed ${from} to ${to}`;
}

/**
 * The answer to an agent's write to a scope under review (Cairn's own): nothing changed,
 * a person decides, and views keep showing memory as it is, so the agent must not try again.
 */
export function reviewText(command: 'create' | 'str_replace' | 'insert' | 'delete' | 'rename', path: string, newPath: string | null, itemId: string): string {
  const what =
    command === 'create' ? `This new file ${path}` : command === 'delete' ? `This deletion of ${path}` : command === 'rename' ? `This rename of ${path} to ${newPath}` : `This change to ${path}`;
  return (
    `${what} awaits a person's review in Cairn's inbox (item ${itemId}); memory is unchanged until it is approved. ` +
    `${path.split('/').slice(0, 3).join('/')} is in review mode: views show memory as it is, without this change. Do not repeat it; go on with your task.`
  );
}

/** The longest old_str an error echoes whole, in characters (code points). */
export const MAX_ECHOED_OLD_STR = 200;

/**
 * old_str as the str_replace errors echo it: in backticks, whole as the reference prints it when
 * it is at most MAX_ECHOED_OLD_STR characters; else its first MAX_ECHOED_OLD_STR characters, an
 * ellipsis, and its length. The reference echoes any length, so a 5 MB old_str made a 5 MB error
 * that the model had to read back; the model sent the text and needs only to recognize it.
 */
function shownOldStr(oldStr: string): string {
  // By code points: a surrogate pair is one character and is never split by the cut.
  let count = 0;
  let cutAt = oldStr.length;
  for (let i = 0; i < oldStr.length; count++) {
    if (count === MAX_ECHOED_OLD_STR) cutAt = i;
    i += (oldStr.codePointAt(i) ?? 0) > 0xffff ? 2 : 1;
  }
  return count <= MAX_ECHOED_OLD_STR ? `\`${oldStr}\`` : `\`${oldStr.slice(0, cutAt)}…\` (${count} characters)`;
}

/**
 * The note of an index (`file`) or a directory view (`entry`) that left out names the content
 * scanners flag: the names themselves would carry what was flagged to the model.
 */
export function withheldNames(count: number, noun: 'file' | 'entry'): string {
  return count === 1
    ? `(1 ${noun} withheld: the content scanners flagged its name; a person can review it in Cairn)`
    : `(${count} ${noun === 'file' ? 'files' : 'entries'} withheld: the content scanners flagged their names; a person can review them in Cairn)`;
}

/** How many line numbers a multiple-occurrences error lists (the reference lists all). */
export const MAX_ECHOED_LINES = 50;

/**
 * The lines of the occurrences: all of them, as the reference, up to MAX_ECHOED_LINES; else the
 * first ones and how many in all (a file of 100 KiB of one-character lines listed 50 000 numbers).
 */
function shownLines(lines: readonly number[]): string {
  if (lines.length <= MAX_ECHOED_LINES) return lines.join(', ');
  return `${lines.slice(0, MAX_ECHOED_LINES).join(', ')}, … (${lines.length} occurrences in all)`;
}

/** The errors a model sees. Each is worded so it can act on it. */
export const errors = {
  notFound: (path: string) => `The path ${path} does not exist. Please provide a valid path.`,
  notFoundForDelete: (path: string) => `The path ${path} does not exist`,
  alreadyExists: (path: string) => `File ${path} already exists`,
  destinationExists: (path: string) => `The destination ${path} already exists`,
  notAFile: (path: string) => `The path ${path} is not a file.`,
  noMatch: (oldStr: string, path: string) => `No replacement was performed, old_str ${shownOldStr(oldStr)} did not appear verbatim in ${path}.`,
  multipleMatches: (oldStr: string, lines: readonly number[]) =>
    `No replacement was performed. Multiple occurrences of old_str ${shownOldStr(oldStr)} in lines: ${shownLines(lines)}. Please ensure it is unique`,
  emptyOldStr: (path: string) => `No replacement was performed: old_str is empty. Give the exact text in ${path} to replace.`,
  badInsertLine: (line: number, lineCount: number) =>
    `Invalid \`insert_line\` parameter: ${line}. It should be within the range of lines of the file: [0, ${lineCount}]`,
  escapes: (path: string) => `Path ${path} would escape ${MEMORY_ROOT} directory`,
  deleteRoot: () => `Cannot delete the ${MEMORY_ROOT} directory itself`,
  renameRoot: () => `Cannot rename the ${MEMORY_ROOT} directory itself`,
  writeRoot: () => `${MEMORY_ROOT} is a directory of scopes; write inside ${SCOPES.map((s) => `${MEMORY_ROOT}/${s}`).join(', ')}.`,
  deleteScopeRoot: (path: string) => `${path} is a scope root and cannot be deleted; delete the files inside it instead.`,
  renameScopeRoot: (path: string) => `${path} is a scope root and cannot be renamed.`,
  crossScopeRename: (from: string, to: string) =>
    `Cannot rename ${from} to ${to}: renames stay within one scope. Create the file in the other scope and delete the old one instead.`,
  intoItself: (from: string, to: string) => `Cannot rename ${from} to ${to}: a directory cannot move inside itself.`,
  fileTooLarge: (path: string, bytes: number) =>
    `${path} would be ${formatFileSize(bytes)}, over the ${formatFileSize(MAX_FILE_BYTES)} limit for one memory file. Keep memories short, or split this into several files.`,
  storedFileTooLarge: (path: string, bytes: number) =>
    `${path} is ${formatFileSize(bytes)}, over the ${formatFileSize(MAX_FILE_BYTES)} limit for one memory file, so it is not read. Ask the user to split or shorten it.`,
  scopeFull: (scope: Scope) =>
    `The ${scope} scope already holds ${MAX_FILES_PER_SCOPE} files, the most it can hold. Merge or delete memories in ${MEMORY_ROOT}/${scope} before creating another.`,
  notUtf8: (path: string) => `${path} is not UTF-8 text; memory files must be UTF-8 text.`,
  notText: (path: string) => `The content for ${path} is not text (it contains a NUL character or an unpaired surrogate); memory files must be UTF-8 text.`,
  readOnlyScope: (scope: Scope, mode: Mode, command: string) =>
    mode === 'explore'
      ? `Memory is read-only in explore mode: \`${command}\` is not allowed. Use view only.`
      : `${MEMORY_ROOT}/${scope} is read-only in ${mode} mode: \`${command}\` is not allowed there. Record this in ${MEMORY_ROOT}/workspace or ${MEMORY_ROOT}/global instead.`,
  unavailable: (scope: Scope, reason: string) => `${MEMORY_ROOT}/${scope} is unavailable: ${reason}`,
  parentNotDirectory: (path: string) => `Cannot use ${path}: one of its parent paths is a file, not a directory.`,
  unsupportedType: (path: string) => `Unsupported file type for ${path}`,
  hardLink: (path: string) =>
    `${path} is a hard link (its content has another name, which may be outside memory), so it is not read. Ask the user to replace it with a plain copy.`,
  contentRejected: (path: string, first: string, others: readonly string[]) =>
    `Nothing was written to ${path}: ${first}${others.length > 0 ? ` Also found: ${others.join(', ')}.` : ''}`,
  cannotPin: (path: string) => `${path} cannot be pinned here: pins are kept by Cairn's app and CLI.`,
  reviewNotAFile: (path: string, command: 'create' | 'str_replace' | 'insert' | 'delete' | 'rename') =>
    `Nothing was proposed: ${path} is not a plain file, and ${MEMORY_ROOT}/${path.split('/')[2] ?? ''} is in review mode, where each change is shown to a person as one file's diff. ${command === 'delete' ? 'Delete' : 'Rename'} the files inside it one at a time instead.`,
  reviewUnknown: (path: string, reason: string) => `Nothing was written to ${path}: ${reason}`,
  busy: (scope: Scope) => `${MEMORY_ROOT}/${scope} is busy with other writers; try the command again.`,
  io: (command: string, path: string, code: string) => `Could not ${command} ${path}: ${describeErrno(code)}.`,
  /** A folder whose entries the OS refused to give: what it holds is unknown, never nothing. */
  unreadableFolder: (path: string, code: string) =>
    `${path}: Cairn cannot read this folder (${describeErrno(code)}), so what it holds is unknown; it is not empty. Ask the user to make it readable, or work elsewhere.`,
  historyUnavailable: (command: string, path: string, code: string) =>
    `Could not ${command} ${path}: the version history could not record the change (${describeHistoryErrno(code)}), so nothing was changed. ${
      code === 'ENOSPC' || code === 'EDQUOT' ? 'Free some disk space' : "Repair the folder `history` in Cairn's home (a folder of yours, its `log.jsonl` a file)"
    }, then try again.`,
} as const;

/** A failure of Cairn's version history (its folder `history` in Cairn's home), never a host path. */
function describeHistoryErrno(code: string): string {
  switch (code) {
    case 'EISDIR':
    case 'ENOTDIR':
    case 'EEXIST':
      return 'a file or folder is in the way of its files';
    case 'EINVAL':
      return 'the change could not be described';
    default:
      return describeErrno(code);
  }
}

function describeErrno(code: string): string {
  switch (code) {
    case 'EACCES':
    case 'EPERM':
      return 'permission denied';
    case 'ENOSPC':
    case 'EDQUOT':
      return 'the disk is full';
    case 'EROFS':
      return 'the filesystem is read-only';
    case 'ENAMETOOLONG':
      return 'the name is too long for the filesystem';
    case 'ELOOP':
      return 'too many levels of symbolic links';
    case 'EBUSY':
      return 'the file is busy';
    case 'EMFILE':
    case 'ENFILE':
      return 'too many open files';
    default:
      return `filesystem error ${code}`;
  }
}
