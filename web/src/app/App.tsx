import { MantineProvider } from '@mantine/core';
import { QueryClientProvider } from '@tanstack/react-query';
import { createHashRouter, RouterProvider } from 'react-router-dom';
import { DemoBanner } from '../components/DemoBanner.tsx';
import { cssVariablesResolver, theme } from '../lib/theme.ts';
import { queryClient } from './query-client.ts';
import { AppRoutes } from './routes.tsx';

// A data router (hash URLs as before) so that a page can ask before it is left (useBlocker); the
// routes themselves stay in AppRoutes.
const router = createHashRouter([
  {
    path: '*',
    element: (
      <>
        <DemoBanner />
        <AppRoutes />
      </>
    ),
  },
]);

export function App() {
  return (
    <MantineProvider theme={theme} cssVariablesResolver={cssVariablesResolver}>
      <QueryClientProvider client={queryClient}>
        <RouterProvider router={router} />
      </QueryClientProvider>
    </MantineProvider>
  );
}
