import { Suspense } from 'react';
import { Navigate, Route, Routes, useLocation } from 'react-router-dom';
import { ChunkErrorBoundary } from './ChunkErrorBoundary.tsx';
import { homePath, RedirectIfSignedIn, RequireAdmin, RequireAuth, RequireUser } from './guards.tsx';
import { Layout } from './Layout.tsx';
import { PageLoader } from './PageLoader.tsx';
import {
  AccountsPage,
  AddGroupPage,
  AdminDashboardPage,
  ApiKeysPage,
  BulkMessagePage,
  ChangePasswordPage,
  ChannelsPage,
  ComposePage,
  ContactsPage,
  DashboardPage,
  ForgotPasswordPage,
  GroupsPage,
  InboxPage,
  JobsPage,
  LoginPage,
  RegisterPage,
  ReportsPage,
  UsersPage,
  WebhooksPage,
} from './pages.tsx';

export { homePath };

export function AppRoutes() {
  const location = useLocation();
  return (
    // Public pages load outside the shell; the shell has its own boundary (Layout).
    <ChunkErrorBoundary resetKey={location.pathname}>
      <Suspense fallback={<PageLoader />}>
        <Routes>
          <Route element={<RedirectIfSignedIn />}>
            <Route path="/login" element={<LoginPage />} />
          </Route>
          <Route path="/register" element={<RegisterPage />} />
          <Route path="/forgot-password" element={<ForgotPasswordPage />} />
          <Route element={<RequireAuth />}>
            <Route element={<Layout />}>
              <Route element={<RequireAdmin />}>
                <Route path="/adminDashboard" element={<AdminDashboardPage />} />
                <Route path="/users" element={<UsersPage />} />
              </Route>
              <Route element={<RequireUser />}>
                <Route path="/dashboard" element={<DashboardPage />} />
                <Route path="/instances" element={<AccountsPage />} />
                <Route path="/compose" element={<ComposePage />} />
                <Route path="/bulkmessage" element={<BulkMessagePage />} />
                <Route path="/jobs" element={<JobsPage />} />
                <Route path="/inbox" element={<InboxPage />} />
                <Route path="/contacts" element={<ContactsPage />} />
                <Route path="/groups" element={<GroupsPage />} />
                <Route path="/groups/new" element={<AddGroupPage />} />
                <Route path="/channels" element={<ChannelsPage />} />
                <Route path="/reports" element={<ReportsPage />} />
              </Route>
              <Route path="/api-keys" element={<ApiKeysPage />} />
              <Route path="/webhooks" element={<WebhooksPage />} />
              <Route path="/password" element={<ChangePasswordPage />} />
            </Route>
          </Route>
          <Route path="*" element={<Navigate to="/login" replace />} />
        </Routes>
      </Suspense>
    </ChunkErrorBoundary>
  );
}
