/**
 * Shapes shared by the open and the premium routes: the version, site addresses, the organisation
 * record, scores and error responses (premium-only fragments: api/routes/premium/schemas.ts).
 */
export const LATEST_VERSION = '0.1';

export function siteUri(baseUrl: string, siteId: number): string {
  return `${baseUrl}/item/${siteId}`;
}

/** `yyyy-mm-dd hh:mm:ss` in UTC (private test list's date_added). */
export function sqlDateTime(d: Date): string {
  return d.toISOString().replace('T', ' ').slice(0, 19);
}

export const ORG_RECORD_SCHEMA = {
  $id: 'Organisation',
  type: 'object',
  properties: {
    category: { type: 'string', enum: ['Municipality', 'Region'], nullable: true, description: 'Kind of organisation; null for a site outside the public sector' },
    sameAs: { type: 'string', nullable: true, description: 'The organisation in Wikidata; null where no source gives one' },
    title: { type: 'string' },
    uri: { type: 'string', description: 'Persistent identifier: the /item/{id} address of the website' },
    url: { type: 'string', description: "The website's start page" },
  },
  required: ['category', 'sameAs', 'title', 'uri', 'url'],
} as const;

export const SCORES_SCHEMA = {
  type: 'object',
  description: 'Latest scores of the site (mean of its latest results per category). null until a category is rated.',
  properties: {
    a11y: { type: 'number', nullable: true, description: '2 decimal places' },
    infosec: { type: 'number', nullable: true, description: '2 decimal places' },
    overall: { type: 'number', nullable: true, description: '5 decimal places' },
    pagespeed: { type: 'number', nullable: true, description: '2 decimal places' },
    webstandard: { type: 'number', nullable: true, description: '2 decimal places' },
  },
  required: ['a11y', 'infosec', 'overall', 'pagespeed', 'webstandard'],
} as const;

export const errorResponses = (...codes: number[]) =>
  Object.fromEntries(codes.map((c) => [c, { $ref: 'Error#' }]));
