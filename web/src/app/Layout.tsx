import { AppShell, Avatar, Badge, Burger, Group, Menu, NavLink, Text, UnstyledButton } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import {
  IconAddressBook,
  IconApi,
  IconChartBar,
  IconDeviceMobile,
  IconInbox,
  IconKey,
  IconLayoutDashboard,
  IconListDetails,
  IconLock,
  IconLogout,
  IconMessages,
  IconSend,
  IconShieldLock,
  IconSpeakerphone,
  IconUsers,
  IconUsersGroup,
  IconWebhook,
} from '@tabler/icons-react';
import { useQueryClient } from '@tanstack/react-query';
import {
  type CSSProperties,
  type RefObject,
  Suspense,
  useEffect,
  useLayoutEffect,
  useRef,
  useState,
  useSyncExternalStore,
} from 'react';
import { Link, Outlet, useLocation, useNavigate } from 'react-router-dom';
import { useLogout } from '../features/auth/api/logout.ts';
import { useInboxCounts } from '../features/inbox/api/get-inbox-counts.ts';
import { useTwoFactorStatus } from '../features/two-factor/api/get-two-factor.ts';
import { TwoFactorModal } from '../features/two-factor/TwoFactorModal.tsx';
import { formatNumber } from '../lib/format.ts';
import { initials } from '../lib/initials.ts';
import { APP_TITLE } from '../lib/page-title.ts';
import { storage, subscribeStorage } from '../lib/storage.ts';
import { ChunkErrorBoundary } from './ChunkErrorBoundary.tsx';
import { PageLoader } from './PageLoader.tsx';
import { preloadPage, preloadWhenIdle } from './pages.tsx';

/** The skip link's target: the page (the hash router owns the URL's fragment, so focus moves by hand). */
function skipToContent() {
  document.getElementById('main-content')?.focus();
}

type NavItem = { to: string; label: string; icon: typeof IconSend; bulkOnly?: boolean };

/** The sidebar of the specification, in the spec's order (Inbox and Channels added). */
const NAV: NavItem[] = [
  { to: '/dashboard', label: 'Dashboard', icon: IconLayoutDashboard },
  { to: '/instances', label: 'Instances', icon: IconDeviceMobile },
  { to: '/compose', label: 'Group Messaging', icon: IconMessages },
  { to: '/bulkmessage', label: 'Bulk Messaging', icon: IconSend, bulkOnly: true },
  { to: '/jobs', label: 'Message Jobs', icon: IconListDetails },
  { to: '/inbox', label: 'Inbox', icon: IconInbox },
  { to: '/contacts', label: 'Contacts', icon: IconAddressBook },
  { to: '/groups', label: 'Groups', icon: IconUsersGroup },
  { to: '/channels', label: 'Channels', icon: IconSpeakerphone },
  { to: '/reports', label: 'MIS Reports', icon: IconChartBar },
];

const useStored = <T,>(read: () => T) => useSyncExternalStore(subscribeStorage, read);

/** The pages of the avatar menu: every signed-in user's, and the admin's own. */
const MENU_PAGES = ['/api-keys', '/webhooks', '/password'];
const ADMIN_PAGES = ['/adminDashboard', '/users', ...MENU_PAGES];

/**
 * Once the page the console opened on has its chunk, the chunks of every other page this user
 * can open, while the browser is idle: a click in the sidebar then shows its page at once.
 */
function usePagesPreloaded(paths: readonly string[]) {
  const location = useLocation();
  const openedOn = useRef(location.pathname);
  const key = paths.join(' ');
  useEffect(() => {
    let live = true;
    let cancel = () => {};
    void preloadPage(openedOn.current).then(() => {
      if (live) cancel = preloadWhenIdle(key.split(' '));
    });
    return () => {
      live = false;
      cancel();
    };
  }, [key]);
}

/** Each page's own tab title (WCAG 2.4.2): the sidebar's name, or the admin pages' and avatar menu's. */
const PAGE_TITLES: Record<string, string> = {
  ...Object.fromEntries(NAV.map((item) => [item.to, item.label])),
  '/adminDashboard': 'Admin Dashboard',
  '/users': 'Manage Users',
  '/api-keys': 'API keys',
  '/webhooks': 'Webhooks',
  '/password': 'Change password',
};

/**
 * The height of a banner rendered above the shell (the demo-mode banner, which stays at the top
 * of the window): the fixed header and sidebar start below it instead of under it.
 */
function useBannerAbove(shell: RefObject<HTMLDivElement | null>): number {
  const [height, setHeight] = useState(0);
  useLayoutEffect(() => {
    const root = shell.current;
    const parent = root?.parentElement;
    if (!root || !parent) return;
    let watched: Element | null = null;
    const resize = new ResizeObserver(() => setHeight(watched?.getBoundingClientRect().height ?? 0));
    // The banner may appear (or go) after the shell: follow the element just before it.
    const follow = () => {
      let banner = root.previousElementSibling;
      // Mantine puts <style> elements before its components.
      while (banner && banner.tagName === 'STYLE') banner = banner.previousElementSibling;
      if (banner === watched) return;
      if (watched) resize.unobserve(watched);
      watched = banner;
      if (banner) resize.observe(banner);
      setHeight(banner?.getBoundingClientRect().height ?? 0);
    };
    follow();
    const children = new MutationObserver(follow);
    children.observe(parent, { childList: true });
    return () => {
      children.disconnect();
      resize.disconnect();
    };
  }, [shell]);
  return height;
}

/** The header, the sidebar (not for ADMIN) and the page frame of every signed-in route. */
export function Layout() {
  const [opened, { toggle, close }] = useDisclosure(false);
  const [twoFactorOpen, setTwoFactorOpen] = useState(false);
  // REQUIRE_ADMIN_2FA: an admin without it can do nothing else, so the set-up opens by itself.
  const twoFactor = useTwoFactorStatus(true);
  const mustSetUp = twoFactor.data?.required === true;
  useEffect(() => {
    if (mustSetUp) setTwoFactorOpen(true);
  }, [mustSetUp]);
  const location = useLocation();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const isAdmin = useStored(storage.isAdmin);
  const bulkEnabled = useStored(storage.isBulkEnabled);
  const name = useStored(storage.userName);
  const unreadThreads = useInboxCounts(!isAdmin).data?.unreadThreads ?? 0;

  const logoutCall = useLogout();
  const logout = () =>
    logoutCall.mutate(undefined, {
      // The token is dropped from this browser either way; an expired one is already revoked.
      onError: (err) => console.error('Logout failed:', err),
      onSettled: () => {
        storage.clear();
        queryClient.clear();
        navigate('/login', { replace: true });
      },
    });

  const items = NAV.filter((item) => !item.bulkOnly || bulkEnabled);
  usePagesPreloaded(isAdmin ? ADMIN_PAGES : [...items.map((item) => item.to), ...MENU_PAGES]);
  const pageTitle = PAGE_TITLES[location.pathname];
  useEffect(() => {
    document.title = pageTitle ? `${pageTitle} · ${APP_TITLE}` : APP_TITLE;
  }, [pageTitle]);
  const shell = useRef<HTMLDivElement>(null);
  const bannerHeight = useBannerAbove(shell);

  return (
    <AppShell
      ref={shell}
      style={{ '--banner-above': `${bannerHeight}px` } as CSSProperties}
      styles={{
        header: { top: 'var(--banner-above)' },
        navbar: {
          top: 'calc(var(--app-shell-header-offset, 0rem) + var(--banner-above))',
          height: 'calc(100dvh - var(--app-shell-header-offset, 0rem) - var(--banner-above))',
        },
      }}
      header={{ height: 60 }}
      navbar={isAdmin ? undefined : { width: 240, breakpoint: 'sm', collapsed: { mobile: !opened } }}
      padding="md"
    >
      {/* The first Tab stop: past the header and the sidebar to the page (WCAG 2.4.1). */}
      <button type="button" className="skip-link" onClick={skipToContent}>
        Skip to content
      </button>
      <AppShell.Header>
        <Group h="100%" px="md" justify="space-between" wrap="nowrap">
          <Group gap="sm" wrap="nowrap">
            {!isAdmin && (
              <Burger
                opened={opened}
                onClick={toggle}
                hiddenFrom="sm"
                size="sm"
                aria-label={opened ? 'Close navigation' : 'Open navigation'}
              />
            )}
            {/* Smaller on a phone, so that the whole title fits beside the burger and the avatar. Not
                a heading: each page's own title is its H1 (WCAG 2.4.6, one H1 a page). */}
            <Text
              component="p"
              fw={700}
              lh={1.3}
              fz={{ base: 'lg', xs: 'var(--mantine-h3-font-size)' }}
              lineClamp={1}
            >
              {isAdmin ? 'Admin Dashboard' : 'Messaging Dashboard'}
            </Text>
          </Group>
          {/* No focus placeholder: a menu holds only items, labels and dividers (axe aria-required-children). */}
          <Menu position="bottom-end" width={220} withinPortal withInitialFocusPlaceholder={false}>
            <Menu.Target>
              {/* The name holds the initials it shows (WCAG 2.5.3, label in name). */}
              <UnstyledButton aria-label={`${initials(name)} Account menu`}>
                <Avatar color="teal" radius="xl" alt={name}>
                  {initials(name)}
                </Avatar>
              </UnstyledButton>
            </Menu.Target>
            <Menu.Dropdown>
              <Menu.Label>Logged in as</Menu.Label>
              <Menu.Label c="var(--mantine-color-text)" fw={600} fz="sm" pt={0}>
                {name}
              </Menu.Label>
              {isAdmin && (
                <>
                  <Menu.Divider />
                  <Menu.Item
                    component={Link}
                    to="/adminDashboard"
                    leftSection={<IconShieldLock size={16} aria-hidden />}
                  >
                    Admin page
                  </Menu.Item>
                  <Menu.Item component={Link} to="/users" leftSection={<IconUsers size={16} aria-hidden />}>
                    Manage Users
                  </Menu.Item>
                </>
              )}
              <Menu.Divider />
              <Menu.Item
                leftSection={<IconKey size={16} aria-hidden />}
                onClick={() => setTwoFactorOpen(true)}
              >
                Two-factor sign-in
              </Menu.Item>
              <Menu.Item component={Link} to="/password" leftSection={<IconLock size={16} aria-hidden />}>
                Change password
              </Menu.Item>
              <Menu.Item component={Link} to="/api-keys" leftSection={<IconApi size={16} aria-hidden />}>
                API keys
              </Menu.Item>
              <Menu.Item component={Link} to="/webhooks" leftSection={<IconWebhook size={16} aria-hidden />}>
                Webhooks
              </Menu.Item>
              <Menu.Divider />
              {/* red.9: 4.5:1 on white (red's default shade is 3.3:1). */}
              <Menu.Item color="red.9" leftSection={<IconLogout size={16} aria-hidden />} onClick={logout}>
                Logout
              </Menu.Item>
            </Menu.Dropdown>
          </Menu>
        </Group>
      </AppShell.Header>
      <TwoFactorModal opened={twoFactorOpen} onClose={() => setTwoFactorOpen(false)} />

      {!isAdmin && (
        <AppShell.Navbar p="xs" component="nav" aria-label="Main navigation">
          {items.map((item) => {
            const active = location.pathname === item.to;
            return (
              <NavLink
                key={item.to}
                component={Link}
                to={item.to}
                label={item.label}
                leftSection={<item.icon size={18} aria-hidden />}
                rightSection={
                  item.to === '/inbox' && unreadThreads > 0 ? (
                    <Badge size="sm" variant="filled" color="teal" circle={unreadThreads < 10}>
                      {formatNumber(unreadThreads)}
                      <span className="visually-hidden"> unread</span>
                    </Badge>
                  ) : undefined
                }
                active={active}
                aria-current={active ? 'page' : undefined}
                // A pointer on its way, or the keyboard's focus: its chunk is likely wanted next.
                onMouseEnter={() => void preloadPage(item.to)}
                onFocus={() => void preloadPage(item.to)}
                onClick={close}
              />
            );
          })}
        </AppShell.Navbar>
      )}

      <AppShell.Main id="main-content" tabIndex={-1}>
        <ChunkErrorBoundary resetKey={location.pathname}>
          <Suspense fallback={<PageLoader />}>
            <Outlet />
          </Suspense>
        </ChunkErrorBoundary>
      </AppShell.Main>
    </AppShell>
  );
}
