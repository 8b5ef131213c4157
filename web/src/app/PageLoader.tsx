import { Center, Loader } from '@mantine/core';

/** Shown while a page's chunk loads. */
export function PageLoader() {
  return (
    <Center py="xl">
      <Loader aria-label="Loading page" />
    </Center>
  );
}
