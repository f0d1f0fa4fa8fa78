/** Options of the premium route plugins (registered with and without the version segment). */
export interface PremiumOptions {
  /** The version reached, e.g. '0.1'. */
  version: string;
  /** Hide this copy from the OpenAPI document (the /0.1 copy is described, not repeated). */
  hidden: boolean;
}
