/**
 * The model-facing input of the `memory` tool: one flat zod object (MCP clients see every field; a
 * union would be advertised as an empty object), plus the normalization that turns what models
 * actually send (aliases, missing fields, nulls) into one typed command or an error naming the field.
 * Every host (CLI, MCP, API) validates with this schema and nothing else.
 *
 * Null means absent: strict-mode model providers (OpenAI structured outputs and others) must send
 * every field of a schema and send `null` for the ones a command does not use. So every optional
 * field is advertised as nullable, and parseMemoryCommand drops null fields before it validates:
 * `{"command":"view","path":"/memories","old_str":null}` is exactly `{"command":"view","path":"/memories"}`,
 * and a required field given as null is reported missing, as if left out.
 */
import { z } from 'zod';
import { COMMANDS } from './constants';
import { MemoryToolError } from './errors';

/** Optional, and null allowed (meaning absent, see above). */
const text = z.string().nullish();
const lineNumber = z.number().int();

export const memoryToolInputSchema = z.object({
  command: z.enum(COMMANDS).describe('One of view, create, str_replace, insert, delete, rename.'),
  path: text.describe('Memory path, e.g. /memories/project/notes.md (view, create, str_replace, insert, delete).'),
  // An array of exactly two integers, not a tuple: a tuple is advertised as `items: [{...}, {...}]`
  // (the draft-07 form), which Codex's schema reader cannot read, and Codex then drops the whole tool.
  view_range: z
    .array(lineNumber)
    .length(2)
    .nullish()
    .describe('view: [start, end] line numbers, 1-based and inclusive; end -1 means the end of the file.'),
  file_text: text.describe('create: the whole content of the new file.'),
  old_str: text.describe('str_replace: the exact text to replace; it must occur exactly once (it may span lines).'),
  new_str: text.describe('str_replace: the replacement text, inserted literally.'),
  insert_line: lineNumber.nullish().describe('insert: the line number after which to insert (0 inserts at the top).'),
  insert_text: text.describe('insert: the text to insert.'),
  old_path: text.describe('rename: the current path.'),
  new_path: text.describe('rename: the new path (in the same scope; it must not exist yet).'),
  // Aliases that models send in practice.
  file_path: text.describe('Alias of path.'),
  filePath: text.describe('Alias of path.'),
  content: text.describe('Alias of file_text.'),
  old_string: text.describe('Alias of old_str.'),
  new_string: text.describe('Alias of new_str.'),
});

type MemoryToolInput = z.infer<typeof memoryToolInputSchema>;

/** One command, after aliases are resolved and required fields checked. */
export type MemoryCommand =
  | { command: 'view'; path: string; view_range?: [number, number] }
  | { command: 'create'; path: string; file_text: string }
  | { command: 'str_replace'; path: string; old_str: string; new_str: string }
  | { command: 'insert'; path: string; insert_line: number; insert_text: string }
  | { command: 'delete'; path: string }
  | { command: 'rename'; old_path: string; new_path: string };

function required<T>(value: T | undefined, field: string, command: string): T {
  if (value === undefined) {
    throw new MemoryToolError(`Missing required parameter \`${field}\` for command \`${command}\`.`);
  }
  return value;
}

function describeIssue(issue: z.core.$ZodIssue): string {
  const field = issue.path.length > 0 ? `\`${issue.path.join('.')}\`` : 'the input';
  if (issue.path[0] === 'command') {
    return `Unknown or missing \`command\`. Use one of: ${COMMANDS.join(', ')}.`;
  }
  if (issue.path[0] === 'view_range') {
    return 'Invalid parameter `view_range`: it must be two integers [start, end], with end -1 for the end of the file.';
  }
  return `Invalid parameter ${field}: ${issue.message}.`;
}

/** The fields of `input` that are not null (null means absent; see the module header). */
function withoutNulls(input: object): Record<string, unknown> {
  return Object.fromEntries(Object.entries(input).filter(([, value]) => value !== null));
}

/** Validates raw input (already parsed JSON) into a MemoryCommand; throws MemoryToolError. */
export function parseMemoryCommand(input: unknown): MemoryCommand {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    throw new MemoryToolError('The memory tool takes one JSON object such as {"command": "view", "path": "/memories"}.');
  }
  const parsed = memoryToolInputSchema.safeParse(withoutNulls(input));
  if (!parsed.success) throw new MemoryToolError(describeIssue(parsed.error.issues[0]!));
  // Validated without nulls, so no field is null here (the type says it may be: the schema allows
  // null for the clients that send it).
  const i = parsed.data as Pick<MemoryToolInput, 'command'> & { [K in Exclude<keyof MemoryToolInput, 'command'>]?: Exclude<MemoryToolInput[K], null> };
  const path = i.path ?? i.file_path ?? i.filePath;
  switch (i.command) {
    case 'view':
      return i.view_range
        ? { command: 'view', path: required(path, 'path', 'view'), view_range: [i.view_range[0]!, i.view_range[1]!] }
        : { command: 'view', path: required(path, 'path', 'view') };
    case 'create':
      return { command: 'create', path: required(path, 'path', 'create'), file_text: required(i.file_text ?? i.content, 'file_text', 'create') };
    case 'str_replace':
      return {
        command: 'str_replace',
        path: required(path, 'path', 'str_replace'),
        old_str: required(i.old_str ?? i.old_string, 'old_str', 'str_replace'),
        new_str: i.new_str ?? i.new_string ?? '',
      };
    case 'insert':
      return {
        command: 'insert',
        path: required(path, 'path', 'insert'),
        insert_line: required(i.insert_line, 'insert_line', 'insert'),
        insert_text: required(i.insert_text, 'insert_text', 'insert'),
      };
    case 'delete':
      return { command: 'delete', path: required(path, 'path', 'delete') };
    case 'rename':
      return {
        command: 'rename',
        old_path: required(i.old_path ?? path, 'old_path', 'rename'),
        new_path: required(i.new_path, 'new_path', 'rename'),
      };
  }
}
