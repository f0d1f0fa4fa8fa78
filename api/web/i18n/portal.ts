/**
 * Strings of the premium portal (api/web/portal/), in sv and en. Filled by the portal.
 */
export const portal: { sv: Record<string, string>; en: Record<string, string> } = { sv: {}, en: {} };
