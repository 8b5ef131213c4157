import { Navigate, Outlet } from 'react-router-dom';
import { storage } from '../lib/storage.ts';

/** No stored token → /login (spec section 2). */
export function RequireAuth() {
  return storage.token() ? <Outlet /> : <Navigate to="/login" replace />;
}

/** /adminDashboard is for ADMIN only; others go to /dashboard (DECISIONS.md). */
export function RequireAdmin() {
  return storage.isAdmin() ? <Outlet /> : <Navigate to="/dashboard" replace />;
}
