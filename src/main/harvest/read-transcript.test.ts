// Either agent's transcript is told apart by its lines, whatever its file is called, and read by
// the right reader: every fixture of each format, copied under a neutral name.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../../tests/support/sandbox';
import { readTranscriptFile, transcriptAgent } from './read-transcript';

const FIXTURES = path.join(REPO_ROOT, 'tests', 'fixtures', 'transcripts');
const fixtures = (agent: string) => fs.readdirSync(path.join(FIXTURES, agent)).filter((n) => n.endsWith('.jsonl')).map((n) => [agent, n] as const);

describe('reading a transcript of either agent', () => {
  it.each([...fixtures('claude'), ...fixtures('codex')])('tells %s from its lines: %s', async (agent, name) => {
    const text = fs.readFileSync(path.join(FIXTURES, agent, name), 'utf8');
    expect(transcriptAgent(text, 'session.jsonl')).toBe(agent);
    const copy = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'cairn-transcript-')), 'session.jsonl');
    fs.writeFileSync(copy, text);
    try {
      const transcript = await readTranscriptFile(copy);
      expect(transcript.agent).toBe(agent);
      expect(transcript.messages.length).toBeGreaterThan(0);
    } finally {
      fs.rmSync(path.dirname(copy), { recursive: true, force: true });
    }
  });
});
