/**
 * The built-in test-type plugins, one folder per test family.
 */
import type { TestPlugin } from '../core/plugin-api.js';
import pagespeed from './pagespeed/index.js';
import a11y from './a11y/index.js';
import htmlValidate from './html-validate/index.js';
import cssLint from './css-lint/index.js';
import standardFiles from './standard-files/index.js';
import notFound from './not-found/index.js';
import lix from './lix/index.js';
import analytics from './analytics/index.js';
import httpNetwork from './http-network/index.js';
import tracking from './tracking/index.js';

export const BUILTIN_PLUGINS: readonly TestPlugin[] = [notFound, standardFiles, a11y, httpNetwork, tracking, cssLint, htmlValidate, pagespeed, lix, analytics];
