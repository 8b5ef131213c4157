import { type ComponentType, type LazyExoticComponent, lazy } from 'react';
import { Navigate, Route, Routes } from 'react-router-dom';
import { storage } from '../lib/storage.ts';
import { RequireAdmin, RequireAuth } from './guards.tsx';
import { Layout } from './Layout.tsx';

// Each route is its own chunk (loaded on first visit).
const page = (load: () => Promise<{ default: ComponentType }>): LazyExoticComponent<ComponentType> =>
  lazy(load);

const LoginPage = page(() => import('../features/auth/LoginPage.tsx'));
const RegisterPage = page(() => import('../features/auth/RegisterPage.tsx'));
const ForgotPasswordPage = page(() => import('../features/auth/ForgotPasswordPage.tsx'));
const DashboardPage = page(() => import('../features/dashboard/DashboardPage.tsx'));
const AdminDashboardPage = page(() => import('../features/admin/AdminDashboardPage.tsx'));
const InstancesPage = page(() => import('../features/instances/InstancesPage.tsx'));
const ComposePage = page(() => import('../features/compose/ComposePage.tsx'));
const BulkMessagePage = page(() => import('../features/bulk/BulkMessagePage.tsx'));
const JobsPage = page(() => import('../features/jobs/JobsPage.tsx'));
const ContactsPage = page(() => import('../features/contacts/ContactsPage.tsx'));
const GroupsPage = page(() => import('../features/groups/GroupsPage.tsx'));
const UsersPage = page(() => import('../features/users/UsersPage.tsx'));
const ReportsPage = page(() => import('../features/reports/ReportsPage.tsx'));

/** Where a signed-in user lands. */
export const homePath = () => (storage.isAdmin() ? '/adminDashboard' : '/dashboard');

export function AppRoutes() {
  return (
    <Routes>
      <Route path="/login" element={<LoginPage />} />
      <Route path="/register" element={<RegisterPage />} />
      <Route path="/forgot-password" element={<ForgotPasswordPage />} />
      <Route element={<RequireAuth />}>
        <Route element={<Layout />}>
          <Route path="/dashboard" element={<DashboardPage />} />
          <Route element={<RequireAdmin />}>
            <Route path="/adminDashboard" element={<AdminDashboardPage />} />
          </Route>
          <Route path="/instances" element={<InstancesPage />} />
          <Route path="/compose" element={<ComposePage />} />
          <Route path="/bulkmessage" element={<BulkMessagePage />} />
          <Route path="/jobs" element={<JobsPage />} />
          <Route path="/contacts" element={<ContactsPage />} />
          <Route path="/groups" element={<GroupsPage />} />
          <Route path="/users" element={<UsersPage />} />
          <Route path="/reports" element={<ReportsPage />} />
        </Route>
      </Route>
      <Route path="*" element={<Navigate to="/login" replace />} />
    </Routes>
  );
}
