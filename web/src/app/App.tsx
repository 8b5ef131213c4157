import { MantineProvider } from '@mantine/core';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { HashRouter } from 'react-router-dom';
import { DemoBanner } from '../components/DemoBanner.tsx';
import { cssVariablesResolver, theme } from '../lib/theme.ts';
import { AppRoutes } from './routes.tsx';

const queryClient = new QueryClient({
  defaultOptions: { queries: { retry: false, refetchOnWindowFocus: false } },
});

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
