import { useState } from 'react';
import { Navigate, Outlet } from 'react-router-dom';
import { storage } from '../lib/storage.ts';

/** Where a signed-in user lands: ADMIN → /adminDashboard, others → /dashboard. */
export const homePath = () => (storage.isAdmin() ? '/adminDashboard' : '/dashboard');

/** No stored token → /login. */
export function RequireAuth() {
  return storage.token() ? <Outlet /> : <Navigate to="/login" replace />;
}

/** /adminDashboard and /users are for ADMIN only; others go to /dashboard (docs/decisions.md, Admin pages). */
export function RequireAdmin() {
  return storage.isAdmin() ? <Outlet /> : <Navigate to="/dashboard" replace />;
}

/**
 * The pages of the sidebar are an ordinary user's: an ADMIN (who has no sidebar and no accounts
 * of their own) opening one goes to the admin home instead of an empty page.
 */
export function RequireUser() {
  return storage.isAdmin() ? <Navigate to="/adminDashboard" replace /> : <Outlet />;
}

/**
 * A signed-in user opening /login goes home (docs/decisions.md, Sign-up and password resets). Checked once, on arrival: the
 * login page itself stores the token mid-way through its sign-in flow and must stay on screen
 * to report the reconnection progress.
 */
export function RedirectIfSignedIn() {
  const [signedIn] = useState(() => !!storage.token());
  return signedIn ? <Navigate to={homePath()} replace /> : <Outlet />;
}
