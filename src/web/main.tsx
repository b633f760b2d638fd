import './styles/app.css';
import { QueryClientProvider } from '@tanstack/react-query';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { Router } from 'wouter';
import { App } from './App';
import { BASE_PATH } from './api/client';
import { markBusyRequests, queryClient } from './api/query-client';
import { ToastProvider } from './components/toast';
import { applyTheme } from './hooks/theme';

// Before the first paint: the saved theme (CSP forbids an inline script in index.html).
applyTheme();

markBusyRequests();

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
