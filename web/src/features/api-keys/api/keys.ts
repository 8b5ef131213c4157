export const apiKeyKeys = { all: ['api-keys'] as const };

export const apiKeysPath = '/api/api-keys';
