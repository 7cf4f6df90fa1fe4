import { describe, expect, it } from 'vitest';
import { MemoryToolError } from './errors';
import { memoryToolInputSchema, parseMemoryCommand } from './schema';

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

  it('is one flat object whose JSON schema shows every field to clients', () => {
    const json = memoryToolInputSchema.toJSONSchema() as { type: string; properties: Record<string, unknown>; required: string[] };
    expect(json.type).toBe('object');
    expect(Object.keys(json.properties)).toEqual(
      expect.arrayContaining(['command', 'path', 'view_range', 'file_text', 'old_str', 'new_str', 'insert_line', 'insert_text', 'old_path', 'new_path']),
    );
    expect(json.required).toEqual(['command']);
  });
});
