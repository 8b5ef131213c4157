export * from './admin.ts';
export * from './auth.ts';
export * from './common.ts';
export * from './messaging.ts';
export * from './operations.ts';
export * from './phone.ts';
export * from './sessions.ts';
export * from './two-factor.ts';
