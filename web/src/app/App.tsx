import { MantineProvider } from '@mantine/core';
import { QueryClientProvider } from '@tanstack/react-query';
import { HashRouter } from 'react-router-dom';
import { DemoBanner } from '../components/DemoBanner.tsx';
import { cssVariablesResolver, theme } from '../lib/theme.ts';
import { queryClient } from './query-client.ts';
import { AppRoutes } from './routes.tsx';

export function App() {
  return (
    <MantineProvider theme={theme} cssVariablesResolver={cssVariablesResolver}>
      <QueryClientProvider client={queryClient}>
        <HashRouter>
          <DemoBanner />
          <AppRoutes />
        </HashRouter>
      </QueryClientProvider>
    </MantineProvider>
  );
}
