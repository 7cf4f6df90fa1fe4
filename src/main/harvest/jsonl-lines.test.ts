// The shared JSON Lines reader: objects in order, blank lines ignored, CRLF and a byte order mark
// tolerated, a bad line counted as malformed, an unfinished last line as truncated.
import { describe, expect, it } from 'vitest';
import { jsonlObjects, type JsonlSkip } from './jsonl-lines';

function read(source: string): { objects: unknown[]; skipped: JsonlSkip[] } {
  const skipped: JsonlSkip[] = [];
  const objects = [...jsonlObjects(source, (why) => skipped.push(why))];
  return { objects, skipped };
}

describe('jsonlObjects', () => {
  it('gives each line’s object in order, ignoring blank lines, CRLF and a byte order mark', () => {
    expect(read('\ufeff{"a":1}\r\n\r\n   \n{"b":2}\n')).toEqual({ objects: [{ a: 1 }, { b: 2 }], skipped: [] });
    expect(read('')).toEqual({ objects: [], skipped: [] });
  });

  it('counts a line that is no JSON object as malformed, and reads on', () => {
    expect(read('{"a":1}\n{"a":\n[1,2]\nnull\n"text"\n{"b":2}\n')).toEqual({ objects: [{ a: 1 }, { b: 2 }], skipped: ['malformed', 'malformed', 'malformed', 'malformed'] });
  });

  it('counts an unfinished last line as truncated; the same line finished is read', () => {
    const whole = '{"a":1}\n{"b":"two"}\n';
    expect(read(whole.slice(0, -5))).toEqual({ objects: [{ a: 1 }], skipped: ['truncated'] });
    // A last line without its newline that parses is whole: taken.
    expect(read(whole.slice(0, -1))).toEqual({ objects: [{ a: 1 }, { b: 'two' }], skipped: [] });
    // Not the last line: malformed, whatever follows.
    expect(read('{"a":\n{"b":2}')).toEqual({ objects: [{ b: 2 }], skipped: ['malformed'] });
  });
});
