import type { AppContext } from '../../context.ts';
import type { App } from '../types.ts';

export function registerDashboardRoutes(_app: App, _ctx: AppContext): void {}
