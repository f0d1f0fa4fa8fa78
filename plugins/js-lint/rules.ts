/**
 * The ESLint rules type 29 runs and the configuration it runs them with: webperf_core's
 * (plugin-javascript configurations/security.mjs and standard.mjs, the rules they turn on),
 * save the inline-config choice below.
 */
import type { Linter } from 'eslint';
import globals from 'globals';
import type { Category } from '../../core/plugin-api.js';

/** Each rule and the category a place it finds counts against (upstream: security, standard). */
export const RULE_CATEGORY = {
  'no-eval': 'infosec',
  'no-implied-eval': 'infosec',
  'no-script-url': 'infosec',
  'no-debugger': 'webstandard',
} as const satisfies Record<string, Category>;

export type JsRule = keyof typeof RULE_CATEGORY;
export const JS_RULES = Object.keys(RULE_CATEGORY) as JsRule[];

export function isJsRule(id: string | null): id is JsRule {
  return id !== null && Object.hasOwn(RULE_CATEGORY, id);
}

/** How a script is parsed: as an ES module first (as upstream), then as a classic script. */
export type SourceType = 'module' | 'script';

/**
 * `noInlineConfig: true`, a deliberate deviation from upstream (which leaves ESLint's default
 * and so honours them): `/* eslint-disable *\/` and the like inside the page's scripts are not
 * obeyed. The browser runs the code whatever its comments say, and bundles carry such comments
 * from their sources, so obeying them would let a script's comments hide its eval from the test.
 * ESLint then warns about each such comment (a message without a rule id, dropped with any
 * other message not of the rules above). Unused-directive reports are off for the same reason.
 */
export function lintConfig(sourceType: SourceType): Linter.Config[] {
  return [
    {
      languageOptions: { ecmaVersion: 'latest', sourceType, globals: { ...globals.browser, ...globals.node } },
      linterOptions: { noInlineConfig: true, reportUnusedDisableDirectives: 'off', reportUnusedInlineConfigs: 'off' },
      rules: Object.fromEntries(JS_RULES.map((rule) => [rule, 'error'])),
    },
  ];
}
