import '@mantine/core/styles.css';
import '@mantine/dates/styles.css';
import './app/app.css';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './app/App.tsx';
import { startArrival } from './app/arrival.ts';
import { queryClient } from './app/query-client.ts';

void startArrival(queryClient, window.location.hash);

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
