import './styles/app.css';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { Router } from 'wouter';
import { App } from './App';
import { ApiError, BASE_PATH } from './api/client';
import { ToastProvider } from './components/toast';
import { applyTheme } from './hooks/theme';

// Before the first paint: the saved theme (CSP forbids an inline script in index.html).
applyTheme();

const queryClient = new QueryClient({
  defaultOptions: {
    queries: {
      staleTime: 15_000,
      refetchOnWindowFocus: false,
      // Client errors (401, 403, 404) do not get better by retrying.
      retry: (count, err) => !(err instanceof ApiError && err.status >= 400 && err.status < 500) && count < 2,
    },
  },
});

// Requests in flight, on <html data-busy>, so that browser tests can wait for a quiet page.
const markBusy = () => {
  document.documentElement.dataset.busy = String(queryClient.isFetching() + queryClient.isMutating());
};
queryClient.getQueryCache().subscribe(markBusy);
queryClient.getMutationCache().subscribe(markBusy);
markBusy();

const root = document.getElementById('root');
if (root)
  createRoot(root).render(
    <StrictMode>
      <QueryClientProvider client={queryClient}>
        <ToastProvider>
          <Router base={BASE_PATH}>
            <App />
          </Router>
        </ToastProvider>
      </QueryClientProvider>
    </StrictMode>,
  );
