/**
 * Where JSON text a person edits by hand (Cairn's settings, agents' config files) first fails to
 * parse, and why, in their words: line and column (1-based) and what was found. The one reader of
 * such errors, so every command words them alike. A byte order mark is read as a space, so offsets
 * stay those of the text.
 */
import { parseTree, printParseErrorCode, type Node, type ParseError, type ParseErrorCode } from 'jsonc-parser';

export interface JsonProblem {
  readonly line: number;
  readonly column: number;
  /** What is wrong there, for a person: "a comma was expected". */
  readonly what: string;
}

const PARSE_ERRORS: Partial<Record<string, string>> = {
  InvalidSymbol: 'a character that is not JSON',
  InvalidNumberFormat: 'a number JSON cannot read',
  PropertyNameExpected: 'a key (in double quotes) was expected',
  ValueExpected: 'a value was expected',
  ColonExpected: 'a colon was expected',
  CommaExpected: 'a comma was expected',
  CloseBraceExpected: 'a closing } was expected',
  CloseBracketExpected: 'a closing ] was expected',
  EndOfFileExpected: 'the file goes on after its JSON value',
  InvalidCommentToken: 'a comment, which JSON does not allow',
  UnexpectedEndOfComment: 'a comment is not closed',
  UnexpectedEndOfString: 'a string is not closed',
  UnexpectedEndOfNumber: 'a number is cut short',
  InvalidUnicode: 'an invalid \\u escape',
  InvalidEscapeCharacter: 'an invalid escape in a string',
  InvalidCharacter: 'a character not allowed in a string',
};

/** Line and column (1-based) of `offset` in `text`. */
function lineAndColumn(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset);
  return { line: before.split('\n').length, column: offset - (before.lastIndexOf('\n') + 1) + 1 };
}

/** The text without its comments (strings kept): enough to look at what precedes an offset. */
function stripComments(text: string): string {
  return text.replace(/"(?:[^"\\]|\\.)*"|\/\/[^\n]*|\/\*[\s\S]*?(?:\*\/|$)/g, (m) => (m.startsWith('"') ? m : ''));
}

/**
 * The tree of `text` (JSONC when `comments`), or the first problem found. Empty content has no
 * tree and no problem.
 */
export function parseJsonTree(text: string, options: { comments: boolean }): { root: Node | undefined; problem: JsonProblem | null } {
  const source = text.startsWith('\uFEFF') ? ` ${text.slice(1)}` : text;
  if (source.trim() === '') return { root: undefined, problem: null };
  const errors: ParseError[] = [];
  const root = parseTree(source, errors, { allowTrailingComma: false, disallowComments: !options.comments, allowEmptyContent: false });
  const first = errors[0];
  if (!first) return { root, problem: null };
  const { line, column } = lineAndColumn(text, first.offset);
  const code = printParseErrorCode(first.error as ParseErrorCode);
  const trailingComma = (code === 'PropertyNameExpected' || code === 'ValueExpected') && /,\s*$/.test(stripComments(text.slice(0, first.offset)));
  return { root, problem: { line, column, what: trailingComma ? 'a comma before a closing bracket, which JSON does not allow' : (PARSE_ERRORS[code] ?? code) } };
}
