/**
 * The one error type a memory command fails with. Its message is model-facing text: it names only
 * virtual `/memories/...` paths, never a host path, and it is printed after `Error: `.
 */
import { CairnError } from '../errors';
export class MemoryToolError extends CairnError {
  override readonly name = 'MemoryToolError';
  constructor(message: string) {
    super(message);
  }
}

/** The text a failed command returns, as the reference implementation's tool runner prints it. */
export function errorText(message: string): string {
  return `Error: ${message}`;
}
