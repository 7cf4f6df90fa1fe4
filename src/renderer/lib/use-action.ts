/**
 * One action a person started (save, rename, trust, ...): whether it is running, and the message
 * of its failure. The action returns an error message for a typed `{status:'error'}` answer, or
 * nothing; a thrown error becomes its message.
 */
import { useCallback, useState } from 'react';
import { errorMessage } from '../api/api-context';

export interface Action {
  readonly busy: boolean;
  readonly error: string | null;
  run(action: () => Promise<string | null | void>): Promise<void>;
  reset(): void;
}

export function useAction(): Action {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const run = useCallback(async (action: () => Promise<string | null | void>) => {
    setBusy(true);
    setError(null);
    try {
      const failure = await action();
      if (failure) setError(failure);
    } catch (err) {
      setError(errorMessage(err));
    } finally {
      setBusy(false);
    }
  }, []);
  const reset = useCallback(() => setError(null), []);
  return { busy, error, run, reset };
}
