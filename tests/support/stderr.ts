/** What this process writes on stderr while a test runs (what a CLI's user or a host's log would see). */
export interface CapturedStderr {
  text(): string;
  restore(): void;
}

export function captureStderr(): CapturedStderr {
  const write = process.stderr.write.bind(process.stderr);
  let said = '';
  process.stderr.write = ((chunk: string | Uint8Array) => {
    said += typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
    return true;
  }) as typeof process.stderr.write;
  return { text: () => said, restore: () => void (process.stderr.write = write) };
}
