import { z } from 'zod';

/**
 * Message templates as `GET /{waba-id}/message_templates` lists them (template management page,
 * https://developers.facebook.com/documentation/business-messaging/whatsapp/templates/template-management:
 * `data[]` of `{ name, parameter_format, components: [{ type: 'HEADER', format: 'IMAGE', … },
 * { type: 'BODY', text: '… {{number_of_guests}} …' }], language, status, category, id }`).
 * Unknown keys are kept out; unknown component types are read loosely (buttons, footers,
 * carousels) since only the header and body matter to a send.
 */
const componentSchema = z
  .object({
    type: z.string(),
    format: z.string().optional(),
    text: z.string().optional(),
  })
  .loose();

export const templateSchema = z.object({
  id: z.string().optional(),
  name: z.string().min(1),
  language: z.string().min(1),
  /** APPROVED, PENDING, REJECTED, PAUSED, DISABLED, … : only APPROVED may be sent. */
  status: z.string(),
  /** MARKETING, UTILITY or AUTHENTICATION (what Meta charges the send as). */
  category: z.string(),
  /** POSITIONAL ({{1}}, {{2}}) unless Meta says NAMED ({{first_name}}). */
  parameter_format: z.string().optional(),
  components: z.array(componentSchema).default([]),
});
export type GraphTemplate = z.infer<typeof templateSchema>;

/** One page of Graph's cursor pagination (Graph API "Paginated Results": data + paging.cursors + next). */
export const templatePageSchema = z.object({
  data: z.array(templateSchema),
  paging: z
    .object({
      cursors: z.object({ before: z.string().optional(), after: z.string().optional() }).optional(),
      next: z.string().optional(),
    })
    .optional(),
});

/** A template as the product shows and sends it. */
export type TemplateSummary = {
  name: string;
  language: string;
  category: string;
  status: string;
  bodyText: string;
  /** The body's variables in order of first appearance: '1', '2', … or the names of a NAMED template. */
  parameters: string[];
  parameterCount: number;
  named: boolean;
  /** IMAGE, VIDEO, DOCUMENT, TEXT, LOCATION or null: what the send must fill in the header. */
  headerFormat: string | null;
  /** Whether the header text itself has a variable (a TEXT header supports one). */
  headerHasParameter: boolean;
};

const VARIABLE = /\{\{\s*([A-Za-z0-9_]+)\s*\}\}/g;

/** The distinct variables of a template text, in order of first appearance. */
export function templateVariables(text: string): string[] {
  const seen: string[] = [];
  for (const match of text.matchAll(VARIABLE)) {
    if (!seen.includes(match[1]!)) seen.push(match[1]!);
  }
  return seen;
}

export function summarizeTemplate(template: GraphTemplate): TemplateSummary {
  const component = (type: string) => template.components.find((c) => c.type.toUpperCase() === type);
  const body = component('BODY');
  const header = component('HEADER');
  const bodyText = body?.text ?? '';
  const parameters = templateVariables(bodyText);
  return {
    name: template.name,
    language: template.language,
    category: template.category.toUpperCase(),
    status: template.status.toUpperCase(),
    bodyText,
    parameters,
    parameterCount: parameters.length,
    named: template.parameter_format?.toUpperCase() === 'NAMED',
    headerFormat: header?.format?.toUpperCase() ?? null,
    headerHasParameter: templateVariables(header?.text ?? '').length > 0,
  };
}
