/**
 * The API as React sees it: the oRPC client and its TanStack Query utilities, provided once at the
 * root. Components read server state only through these (never a transport of their own).
 */
import { createTanstackQueryUtils } from '@orpc/tanstack-query';
import { QueryClient } from '@tanstack/react-query';
import { createContext, useContext, type ReactNode } from 'react';
import type { ApiClient } from './client';

type ApiQueryUtils = ReturnType<typeof createTanstackQueryUtils<ApiClient>>;

export interface Api {
  readonly client: ApiClient;
  readonly orpc: ApiQueryUtils;
}

const ApiContext = createContext<Api | null>(null);

export function makeApi(client: ApiClient): Api {
  return { client, orpc: createTanstackQueryUtils(client) };
}

/** Server state is kept fresh by the change stream, not by refetching on a timer or on focus. */
export function makeQueryClient(): QueryClient {
  return new QueryClient({
    defaultOptions: {
      queries: { staleTime: Infinity, refetchOnWindowFocus: false, retry: 1 },
    },
  });
}

export function ApiProvider({ api, children }: { api: Api; children: ReactNode }) {
  return <ApiContext.Provider value={api}>{children}</ApiContext.Provider>;
}

export function useApi(): Api {
  const api = useContext(ApiContext);
  if (!api) throw new Error('useApi outside ApiProvider');
  return api;
}

/** A message a person can read from whatever a call threw. */
export function errorMessage(err: unknown): string {
  if (err instanceof Error && err.message) return err.message;
  return 'Something went wrong.';
}
