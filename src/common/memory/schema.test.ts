import { describe, expect, it } from 'vitest';
import { MemoryToolError } from './errors';
import { memoryToolInputSchema, parseMemoryCommand } from './schema';

type JsonSchema = { type?: string | string[]; anyOf?: JsonSchema[] };

/** Whether a JSON schema accepts null (`type: [..., "null"]` or an `anyOf` branch of type null). */
function allowsNull(schema: JsonSchema): boolean {
  const types = Array.isArray(schema.type) ? schema.type : [schema.type];
  return types.includes('null') || (schema.anyOf ?? []).some(allowsNull);
}

function failure(input: unknown): string {
  try {
    parseMemoryCommand(input);
  } catch (err) {
    expect(err).toBeInstanceOf(MemoryToolError);
    return (err as Error).message;
  }
  throw new Error('expected a failure');
}

describe('parseMemoryCommand', () => {
  it('accepts the aliases models send', () => {
    expect(parseMemoryCommand({ command: 'view', file_path: '/memories' })).toEqual({ command: 'view', path: '/memories' });
    expect(parseMemoryCommand({ command: 'view', filePath: '/memories' })).toEqual({ command: 'view', path: '/memories' });
    expect(parseMemoryCommand({ command: 'create', path: '/memories/global/a.md', content: 'x' })).toEqual({
      command: 'create',
      path: '/memories/global/a.md',
      file_text: 'x',
    });
    expect(parseMemoryCommand({ command: 'str_replace', path: 'p', old_string: 'a', new_string: 'b' })).toEqual({
      command: 'str_replace',
      path: 'p',
      old_str: 'a',
      new_str: 'b',
    });
    expect(parseMemoryCommand({ command: 'rename', path: '/a', new_path: '/b' })).toEqual({ command: 'rename', old_path: '/a', new_path: '/b' });
  });

  it('prefers the canonical field over an alias', () => {
    expect(parseMemoryCommand({ command: 'view', path: '/memories/global', file_path: '/memories/project' })).toEqual({
      command: 'view',
      path: '/memories/global',
    });
  });

  it('treats a missing new_str as deleting old_str', () => {
    expect(parseMemoryCommand({ command: 'str_replace', path: 'p', old_str: 'a' })).toMatchObject({ new_str: '' });
  });

  it.each([
    [{ command: 'view' }, 'Missing required parameter `path` for command `view`.'],
    [{ command: 'create', path: '/memories/global/a.md' }, 'Missing required parameter `file_text` for command `create`.'],
    [{ command: 'str_replace', path: 'p' }, 'Missing required parameter `old_str` for command `str_replace`.'],
    [{ command: 'insert', path: 'p', insert_text: 'x' }, 'Missing required parameter `insert_line` for command `insert`.'],
    [{ command: 'insert', path: 'p', insert_line: 1 }, 'Missing required parameter `insert_text` for command `insert`.'],
    [{ command: 'rename', new_path: '/b' }, 'Missing required parameter `old_path` for command `rename`.'],
    [{ command: 'rename', old_path: '/a' }, 'Missing required parameter `new_path` for command `rename`.'],
    [{ command: 'delete' }, 'Missing required parameter `path` for command `delete`.'],
  ])('names the missing field: %j', (input, message) => {
    expect(failure(input)).toBe(message);
  });

  it.each([
    [{ command: 'copy', path: '/memories' }, 'Unknown or missing `command`. Use one of: view, create, str_replace, insert, delete, rename.'],
    [{ path: '/memories' }, 'Unknown or missing `command`'],
    [{ command: 'view', path: '/memories/global/a', view_range: [1] }, 'Invalid parameter `view_range`'],
    [{ command: 'view', path: '/memories/global/a', view_range: [1.5, 2] }, 'Invalid parameter `view_range`'],
    [{ command: 'insert', path: 'p', insert_line: 'two', insert_text: 'x' }, 'Invalid parameter `insert_line`'],
    [{ command: 'create', path: 42, file_text: 'x' }, 'Invalid parameter `path`'],
    ['view /memories', 'takes one JSON object'],
    [null, 'takes one JSON object'],
    [[{ command: 'view' }], 'takes one JSON object'],
  ])('explains bad input: %j', (input, fragment) => {
    expect(failure(input)).toContain(fragment);
  });

  describe('null means absent (strict-mode providers send null for every unused field)', () => {
    const FIELDS = ['path', 'view_range', 'file_text', 'old_str', 'new_str', 'insert_line', 'insert_text', 'old_path', 'new_path', 'file_path', 'filePath', 'content', 'old_string', 'new_string'] as const;
    /** `input` with every field it does not give set to null, as a strict-mode provider sends it. */
    const strict = (input: Record<string, unknown>) => ({ ...Object.fromEntries(FIELDS.map((f) => [f, null])), ...input });

    it.each([
      { command: 'view', path: '/memories' },
      { command: 'view', path: '/memories/global/a.md', view_range: [1, 3] },
      { command: 'create', path: '/memories/global/a.md', file_text: 'x' },
      { command: 'str_replace', path: '/memories/global/a.md', old_str: 'a', new_str: 'b' },
      { command: 'str_replace', path: '/memories/global/a.md', old_str: 'a' },
      { command: 'insert', path: '/memories/global/a.md', insert_line: 0, insert_text: 'x' },
      { command: 'delete', path: '/memories/global/a.md' },
      { command: 'rename', old_path: '/memories/global/a.md', new_path: '/memories/global/b.md' },
    ])('parses %j the same with every other field null', (input) => {
      expect(parseMemoryCommand(strict(input))).toEqual(parseMemoryCommand(input));
      expect(parseMemoryCommand({ ...input, old_str: input.old_str ?? null })).toEqual(parseMemoryCommand(input));
    });

    it('a null field does not hide its alias: path null, file_path given', () => {
      expect(parseMemoryCommand({ command: 'view', path: null, file_path: '/memories' })).toEqual({ command: 'view', path: '/memories' });
    });

    it.each([
      [{ command: 'view', path: null }, 'Missing required parameter `path` for command `view`.'],
      [{ command: 'create', path: '/memories/global/a.md', file_text: null }, 'Missing required parameter `file_text` for command `create`.'],
      [{ command: 'str_replace', path: 'p', old_str: null, new_str: 'b' }, 'Missing required parameter `old_str` for command `str_replace`.'],
      [{ command: 'insert', path: 'p', insert_line: null, insert_text: 'x' }, 'Missing required parameter `insert_line` for command `insert`.'],
      [{ command: 'rename', old_path: '/a', new_path: null }, 'Missing required parameter `new_path` for command `rename`.'],
    ])('a required field given as null is missing, with the same error as leaving it out: %j', (input, message) => {
      expect(failure(strict(input))).toBe(message);
      expect(failure(input)).toBe(message);
    });

    it('a null command is an unknown or missing command', () => {
      expect(failure({ command: null, path: '/memories' })).toContain('Unknown or missing `command`');
    });

    it('the JSON schema says every field but command may be null', () => {
      const json = memoryToolInputSchema.toJSONSchema() as { properties: Record<string, JsonSchema> };
      for (const field of FIELDS) expect(allowsNull(json.properties[field]!), field).toBe(true);
      expect(allowsNull(json.properties.command!)).toBe(false);
    });
  });

  it('is one flat object whose JSON schema shows every field to clients', () => {
    const json = memoryToolInputSchema.toJSONSchema() as { type: string; properties: Record<string, unknown>; required: string[] };
    expect(json.type).toBe('object');
    expect(Object.keys(json.properties)).toEqual(
      expect.arrayContaining(['command', 'path', 'view_range', 'file_text', 'old_str', 'new_str', 'insert_line', 'insert_text', 'old_path', 'new_path']),
    );
    expect(json.required).toEqual(['command']);
  });
});
