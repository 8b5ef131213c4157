import { Loader } from '@mantine/core';
import { Suspense } from 'react';
import { Outlet } from 'react-router-dom';

/** The header, sidebar and page frame (being built: issue 5). */
export function Layout() {
  return (
    <Suspense fallback={<Loader />}>
      <Outlet />
    </Suspense>
  );
}
