/**
 * The error of a `<home>/config.json` that does not parse (./settings-file.ts throws it), apart from
 * the file's reader so that the processes that only catch it (an MCP session binding, the CLI's
 * report of settings problems) do not load the reader's schema and JSON editor to know it.
 */
import { CairnError } from '../../common/errors';

/** config.json does not parse: nothing is written over it, and writes that depend on it are refused. */
export class SettingsFileError extends CairnError {
  override readonly name = 'SettingsFileError';
  constructor(
    readonly file: string,
    /** What is wrong, with the line and column, naming no host path (a model may be told). */
    readonly problem: string,
  ) {
    super(`Cairn's settings file ${file} does not parse: ${problem}. Cairn changes nothing in it, and refuses agents' writes, until it does: fix it by hand (or move it away to start again with the defaults).`);
  }

  /** The same, for a model: the file named by its place in Cairn's home, not by a host path. */
  get forModel(): string {
    return `Cairn's settings file (config.json in Cairn's home) does not parse: ${this.problem}. Until a person fixes it, Cairn cannot tell whether this scope is under review, so agents' writes are refused; ask the person to fix the file.`;
  }
}
