import {
  ChangePasswordBody,
  ChangePasswordResponse,
  ErrorResponse,
  ForgotPasswordBody,
  LoginBody,
  LoginErrorResponse,
  LoginResponse,
  RegisterBody,
  SuccessMessage,
  TwoFactorCodeBody,
  TwoFactorEnableResponse,
  TwoFactorSetupResponse,
  TwoFactorStatusResponse,
  UserDetailsResponse,
} from '@wa/contract';
import {
  changeOwnPassword,
  forgotPassword,
  login,
  logout,
  register,
  signedInUser,
} from '../../auth/service.ts';
import {
  disableTwoFactor,
  enableTwoFactor,
  startTwoFactorSetup,
  twoFactorStatus,
} from '../../auth/two-factor.ts';
import type { AppContext } from '../../context.ts';
import { forbidden } from '../../errors.ts';
import { type App, requireUser } from '../types.ts';

const errors = { 400: ErrorResponse, 401: ErrorResponse, 403: ErrorResponse, 429: ErrorResponse };

export function registerAuthRoutes(app: App, ctx: AppContext): void {
  const { db, config } = ctx;

  app.post(
    '/api/auth/login',
    {
      schema: {
        tags: ['auth'],
        body: LoginBody,
        response: { 200: LoginResponse, ...errors, 401: LoginErrorResponse },
      },
      // Failures are limited per account and per address in the database (auth/throttle.ts).
      config: { public: true },
    },
    async (request) => login(db, config, request.body, request.ip),
  );

  const twoFactorErrors = { 400: ErrorResponse, 401: ErrorResponse, 409: ErrorResponse, 429: ErrorResponse };

  app.get(
    '/api/auth/2fa',
    { schema: { tags: ['auth'], response: { 200: TwoFactorStatusResponse, 401: ErrorResponse } } },
    async (request) => twoFactorStatus(config, requireUser(request)),
  );

  app.post(
    '/api/auth/2fa/setup',
    {
      config: { noApiKey: true },
      schema: { tags: ['auth'], response: { 200: TwoFactorSetupResponse, ...twoFactorErrors } },
    },
    async (request) => startTwoFactorSetup(db, config, requireUser(request)),
  );

  app.post(
    '/api/auth/2fa/enable',
    {
      config: { noApiKey: true },
      schema: {
        tags: ['auth'],
        body: TwoFactorCodeBody,
        response: { 200: TwoFactorEnableResponse, ...twoFactorErrors },
      },
    },
    async (request) => enableTwoFactor(db, config, requireUser(request), request.body.code, request.ip),
  );

  app.post(
    '/api/auth/2fa/disable',
    {
      config: { noApiKey: true },
      schema: {
        tags: ['auth'],
        body: TwoFactorCodeBody,
        response: { 200: SuccessMessage, ...twoFactorErrors },
      },
    },
    async (request) => disableTwoFactor(db, config, requireUser(request), request.body.code, request.ip),
  );

  app.post(
    '/api/auth/password',
    {
      // A key cannot change the password of its user.
      config: { noApiKey: true },
      schema: {
        tags: ['auth'],
        summary: 'Change your own password: every sign-in and API key ends; the answer carries a new token',
        body: ChangePasswordBody,
        response: { 200: ChangePasswordResponse, ...errors },
      },
    },
    async (request) => changeOwnPassword(db, config, requireUser(request), request.body, request.ip),
  );

  app.post(
    '/api/auth/logout',
    { schema: { tags: ['auth'], response: { 200: SuccessMessage, 401: ErrorResponse } } },
    async (request) => {
      requireUser(request);
      await logout(db, request.token!);
      return { success: true, message: 'Logged out' };
    },
  );

  app.get(
    '/api/userDetails',
    { schema: { tags: ['auth'], response: { 200: UserDetailsResponse, 401: ErrorResponse } } },
    async (request) => {
      const user = await signedInUser(db, requireUser(request));
      return { success: true as const, credits: user.credits, user };
    },
  );

  app.post(
    '/api/auth/register',
    {
      schema: {
        tags: ['auth'],
        body: RegisterBody,
        response: { 200: SuccessMessage, ...errors, 409: ErrorResponse },
      },
      config: {
        public: true,
        rateLimit: { max: 20, timeWindow: 60 * 60 * 1000 },
      },
    },
    async (request) => {
      if (!config.signupEnabled)
        throw forbidden('Sign-up is disabled. Please ask your administrator for an account.');
      await register(db, request.body);
      return { success: true, message: 'Account created. You can now log in.' };
    },
  );

  app.post(
    '/api/auth/forgot-password',
    {
      schema: { tags: ['auth'], body: ForgotPasswordBody, response: { 200: SuccessMessage, ...errors } },
      config: { public: true, rateLimit: { max: 10, timeWindow: 60 * 60 * 1000 } },
    },
    async (request) => {
      await forgotPassword(db, request.body.username);
      return {
        success: true,
        message: 'If the account exists, your administrator has been asked to reset its password.',
      };
    },
  );
}
