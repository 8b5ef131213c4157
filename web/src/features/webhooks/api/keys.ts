export const webhookKeys = {
  all: ['webhooks'] as const,
  attempts: (id: string) => ['webhooks', id, 'attempts'] as const,
};

export const webhooksPath = '/api/webhooks';
export const webhookPath = (id: string) => `${webhooksPath}/${encodeURIComponent(id)}`;
